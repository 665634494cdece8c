import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { API_SCHEMA_FILE, API_TYPES_COMMAND, apiTypesOf, servedDocument } from "../../../scripts/api-types";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("the web app's generated API types", () => {
  it("match the server's OpenAPI document (regenerated in memory)", async () => {
    const expected = await apiTypesOf(await servedDocument());
    const checkedIn = readFileSync(path.join(root, API_SCHEMA_FILE), "utf8");
    if (checkedIn !== expected) {
      expect.fail(
        `${API_SCHEMA_FILE} is out of date with the server's routes: run \`${API_TYPES_COMMAND}\` and commit it`,
      );
    }
  });
});
