import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take long for their size. On a fresh clone vitest has no durations yet and runs each project's
 * files largest first, so these short files ran among the last of the whole run (embedded.test.ts's 52 s
 * started when the other worker had only unit files left, which then waited idle): they run first in their
 * project instead. With durations cached (a second local run) vitest's own order already runs them early.
 */
const LONG_FOR_THEIR_SIZE = [
  "src/server/db/embedded.test.ts",
  "src/server/db/pglite-thread.test.ts",
  "src/server/features/codes/refused-lookups.test.ts",
  "src/server/features/organisations/migration.test.ts",
  "src/server/features/sites/migration.test.ts",
  "src/server/trust-proxy.test.ts",
];

export default class Sequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const long = (file: TestSpecification) => LONG_FOR_THEIR_SIZE.some((name) => file.moduleId === `${root}/${name}`);
    // Within each project (vitest keeps a project's files together), the long ones first, in vitest's order.
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    return projects.flatMap((name) => {
      const own = sorted.filter((file) => file.project.name === name);
      return [...own.filter(long), ...own.filter((file) => !long(file))];
    });
  }
}
