import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  API_OPERATIONS_FILE,
  API_SCHEMA_FILE,
  API_TYPES_COMMAND,
  apiOperationsOf,
  apiTypesOf,
  servedDocument,
} from "../../../scripts/api-types";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every .ts/.tsx file under a folder. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourcesUnder(file);
    return /\.tsx?$/.test(name) ? [file] : [];
  });
}

describe("the web app's generated API client", () => {
  // Builds the app and runs openapi-typescript and biome: seconds alone, more on a busy machine.
  it("its types and operations match the server's OpenAPI document (regenerated in memory)", {
    timeout: 120_000,
  }, async () => {
    const document = await servedDocument();
    const stale = [
      [API_SCHEMA_FILE, await apiTypesOf(document)],
      [API_OPERATIONS_FILE, apiOperationsOf(document)],
    ].filter(([file, expected]) => readFileSync(path.join(root, file as string), "utf8") !== expected);
    if (stale.length > 0) {
      expect.fail(
        `${stale.map(([file]) => file).join(" and ")} out of date with the server's routes: run \`${API_TYPES_COMMAND}\` and commit`,
      );
    }
  });

  it("is the only place in src/web that names an /api/ URL (pages call operations by their id)", () => {
    const generated = new Set([API_SCHEMA_FILE, API_OPERATIONS_FILE].map((file) => path.join(root, file)));
    const handTyped = sourcesUnder(path.join(root, "src/web"))
      .filter((file) => !generated.has(file))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ line, where: `${path.relative(root, file)}:${i + 1}` }))
          .filter(({ line }) => /["'`]\/api\//.test(line))
          .map(({ where, line }) => `${where}: ${line.trim()}`),
      );
    expect(handTyped).toEqual([]);
  });
});
