import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "@server/config";
import { describe, expect, it } from "vitest";

const DATA_DIR = mkdtempSync(path.join(tmpdir(), "callproof-direct-url-"));

describe("DATABASE_DIRECT_URL", () => {
  it("defaults to DATABASE_URL, and names the server itself when a pooler is DATABASE_URL", () => {
    const plain = loadConfig({ DATA_DIR, DATABASE_URL: "postgres://app@db:5432/callproof" });
    expect(plain.databaseDirectUrl).toBe("postgres://app@db:5432/callproof");
    const pooled = loadConfig({
      DATA_DIR,
      DATABASE_URL: "postgres://app@pgbouncer:6432/callproof",
      DATABASE_DIRECT_URL: "postgres://app@db:5432/callproof",
    });
    expect(pooled).toMatchObject({
      databaseUrl: "postgres://app@pgbouncer:6432/callproof",
      databaseDirectUrl: "postgres://app@db:5432/callproof",
    });
    expect(loadConfig({ DATA_DIR }).databaseDirectUrl).toBeUndefined();
  });

  it("refuses a direct URL without DATABASE_URL, or one that is not PostgreSQL's, naming the variable", () => {
    expect(() => loadConfig({ DATA_DIR, DATABASE_DIRECT_URL: "postgres://app@db/callproof" })).toThrow(
      /DATABASE_DIRECT_URL needs DATABASE_URL/,
    );
    expect(() =>
      loadConfig({ DATA_DIR, DATABASE_URL: "postgres://app@pgbouncer/cp", DATABASE_DIRECT_URL: "mysql://db/cp" }),
    ).toThrow(/DATABASE_DIRECT_URL must start with postgres:/);
  });
});
