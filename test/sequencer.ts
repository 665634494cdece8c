import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order files start in: vitest's own (a project at a time; within one, failed first, then the longest
 * by the last run's times, or the largest on a fresh clone), except that the browser project goes last.
 * Its production build runs in the background meanwhile (test/build-once.ts) instead of holding both
 * workers for its 20-25 s before any file starts.
 */
export default class BrowserLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const browser = (spec: TestSpecification) => spec.project.name === "browser";
    return [...sorted.filter((spec) => !browser(spec)), ...sorted.filter(browser)];
  }
}
