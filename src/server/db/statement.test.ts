import { statement } from "@server/db/client";
import { buildTestApp, type TestApp } from "@test/helpers";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

const $ = (name: string) => sql.placeholder(name);

it("sends a placeholder once per cast, and every occurrence reads its own value", async () => {
  const at = "2026-11-28T05:00:00.000Z";
  const s = statement(
    "t_shared",
    sql`select ${$("at")}::timestamptz < ${$("at")}::timestamptz + interval '1 s' as later,
      ${$("at")}::text as as_text, ${$("at")}::timestamptz = ${$("at")}::timestamptz as same,
      ${$("n")}::int + ${$("n")}::int + ${7}::int + ${7}::int as sum, ${$("word")} || '' as uncast,
      ${$("word")} || '!' as uncast_again`,
  );
  // at as timestamptz and as text, n as int, two literals, two uncast occurrences: 7 parameters, not 12
  expect(s.params).toHaveLength(7);
  expect(s.text).toContain("$1::timestamptz < $1::timestamptz");
  const [row] = await t.database.db.run<Record<string, unknown>>(s, { at, n: 2, word: "stone" });
  // the text cast reads the value as sent, not the timestamp's own text form
  expect(row).toEqual({ later: true, as_text: at, same: true, sum: 18, uncast: "stone", uncast_again: "stone!" });
});
