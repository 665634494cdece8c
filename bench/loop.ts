/**
 * Closing-the-loop benchmark: for 200 look-ups, the time from sending the look-up to
 *   - the `verified` event on the employee's open status stream (GET /api/codes/:id/events), and
 *   - the signed `code.verified` webhook reaching a receiver on loopback.
 * The look-up is answered by a second app instance on the same database, so on PostgreSQL the event
 * crosses processes' connections through LISTEN/NOTIFY as it does between workers.
 *   npm run bench -- loop                                                            (PGlite, one instance)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- loop   (PostgreSQL, two instances)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Database, openDatabase } from "@server/db/client";
import { identityCodes } from "@server/db/schema";
import { codeHash } from "@server/features/codes/service";
import { drawWords } from "@server/features/codes/words";
import { IDENTITY_CODE } from "@shared/constants";
import { createEmployee, createEmployer, freshIp, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signIn, throwawayPostgres } from "@test/helpers";

const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 200);
const base = process.env.BENCH_DATABASE_URL;
const env = { ...TRUST_PROXY_ENV, NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" };

let scratch: Awaited<ReturnType<typeof throwawayPostgres>> | null = null;
let databases: Database[] = [];
if (base) {
  scratch = await throwawayPostgres(base, "cp_bench");
  databases = [await openDatabase({ databaseUrl: scratch.url }), await openDatabase({ databaseUrl: scratch.url })];
}
const a = await buildTestApp({ env, listen: true, ...(databases[0] ? { database: databases[0] } : {}) });
const b = databases[1] ? await buildTestApp({ env, database: databases[1], clock: a.clock }) : a;
// The real clock: codes expire and deliveries are stamped as in production.
a.clock.set(Date.now());
setInterval(() => a.clock.set(Date.now()), 5).unref();

const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    const codeId = String((JSON.parse(body) as { data: { codeId: number } }).data.codeId);
    arrivals.set(codeId, performance.now());
    res.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const employer = await createEmployer(a);
const boss = await signIn(a, employer.user.email);
await boss.request("PUT", "/api/employer/webhook", { url: hookUrl, events: ["code.verified"] });
const employee = await createEmployee(a, employer.org.id, employer.domain);
const browser = await signIn(a, employee.email);

const toScreen: number[] = [];
const toHook: number[] = [];
for (let i = 0; i < LOOKUPS; i++) {
  const words = drawWords();
  const now = new Date();
  const [code] = await a.database.db
    .insert(identityCodes)
    .values({
      userId: employee.id,
      codeHash: codeHash(a.config.appSecret, words),
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDENTITY_CODE.lifetimeMs),
    })
    .returning({ id: identityCodes.id });
  const id = code!.id;
  const controller = new AbortController();
  const res = await fetch(`${a.url}/api/codes/${id}/events`, {
    headers: { cookie: browser.cookieHeader() },
    signal: controller.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("event: live")) seen += (await reader.read()).value ?? "";
  const sent = performance.now();
  const answer = await b.app.inject({
    method: "POST",
    url: "/api/verify",
    // each look-up from its own client address: the 20-an-hour limit is not what is measured
    headers: { "content-type": "application/json", origin: `https://${employer.domain}`, "x-forwarded-for": freshIp() },
    payload: JSON.stringify({ words: words.join(" ") }),
  });
  if (!answer.json().verified) throw new Error(`look-up ${i} did not verify: ${answer.body}`);
  while (!seen.includes("event: verified")) seen += (await reader.read()).value ?? "";
  toScreen.push(performance.now() - sent);
  controller.abort();
  while (!arrivals.has(String(id))) await new Promise((r) => setTimeout(r, 1));
  toHook.push((arrivals.get(String(id)) as number) - sent);
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const line = (name: string, xs: number[]) =>
  `${name.padEnd(38)} median ${pct(xs, 50).toFixed(1).padStart(6)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(6)} ms   max ${Math.max(
    ...xs,
  )
    .toFixed(1)
    .padStart(6)} ms`;
const engine = base ? "PostgreSQL, look-up on a 2nd instance" : "PGlite, one instance";
console.log(`${LOOKUPS} look-ups (${engine})`);
console.log(line("look-up sent → employee's screen", toScreen));
console.log(line("look-up sent → webhook received", toHook));

receiver.close();
if (b !== a) await b.close();
await a.close();
for (const d of databases) await d.close();
await scratch?.drop();
process.exit(0);
