import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildTestApp, type TestApp } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEATURES } from "./index";

const here = path.dirname(fileURLToPath(import.meta.url));
const folders = readdirSync(here).filter((f) => statSync(path.join(here, f)).isDirectory());

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("the feature registry", () => {
  it("lists every feature folder once, and only folders", () => {
    expect(FEATURES.map((f) => f.name).sort()).toEqual([...folders].sort());
  });

  it("tags every /api route in /api/docs with the folder of the feature that serves it", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/openapi.json" })).json() as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const untagged: string[] = [];
    for (const [url, operations] of Object.entries(doc.paths)) {
      if (!url.startsWith("/api/")) continue;
      for (const [method, op] of Object.entries(operations)) {
        if (op.tags?.length !== 1 || !folders.includes(op.tags[0]!)) untagged.push(`${method.toUpperCase()} ${url}`);
      }
    }
    expect(untagged).toEqual([]);
    expect(doc.paths["/api/verify"]?.post?.tags).toEqual(["codes"]);
    expect(doc.paths["/api/employer/alerts"]?.get?.tags).toEqual(["alerts"]);
  });

  it("is what the README's 'Where things live' lists", () => {
    const readme = readFileSync(path.join(here, "../../../README.md"), "utf8");
    for (const feature of FEATURES) expect(readme).toContain(`| \`${feature.name}\` | ${feature.purpose} |`);
  });
});
