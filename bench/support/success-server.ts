/**
 * The server half of the successful look-ups benchmark (bench/verify-success.ts), in its own process so
 * the load generator does not share its event loop: the whole product (TRUST_PROXY on, logging off) on
 * PGlite on disk or a throwaway PostgreSQL database, seeded with one organisation, EMPLOYEES employees
 * (e-mail proved) and API keys (every scope); with BENCH_WEBHOOK_URL, a webhook endpoint there taking
 * `code.verified` (as an employer sets one, its secret sealed). Prints `{"url", "keys", "employees"}` once listening;
 * SIGTERM closes it and drops its database.
 */
import { randomBytes } from "node:crypto";
import { saveEndpoint } from "@server/features/webhooks/repository";
import { newWebhookSecret } from "@server/features/webhooks/signature";
import { SEALED_PURPOSES, sealSecret } from "@server/lib/sealed-secrets";
import { benchApp, benchDatabase } from "./bench-app";
import { seedOrganisation } from "./seed-organisation";

const employeesWanted = Number(process.env.BENCH_EMPLOYEES ?? 400);
/** A key takes 600 calls a minute: enough keys that issuing, streams and status reads never wait on one. */
const KEYS = 20;
const { database, dataDir, dispose } = await benchDatabase("bench-success");
const { config, app } = await benchApp(database, dataDir);

const now = new Date();
const domain = `success-${randomBytes(3).toString("hex")}.test`;
const {
  id: organisationId,
  keys,
  employees,
} = await seedOrganisation(database, config.appSecret, {
  companyName: "Bench Success",
  domain,
  employees: employeesWanted,
  keys: KEYS,
  now,
});

const hook = process.env.BENCH_WEBHOOK_URL;
if (hook) {
  const secret = newWebhookSecret();
  await saveEndpoint(database.db, {
    organisationId,
    url: hook,
    events: ["code.verified"],
    secretSealed: sealSecret(config.appSecret, SEALED_PURPOSES.webhookSecret, organisationId, secret),
    secretHint: secret.slice(-4),
    now,
  });
}

const url = await app.listen({ port: 0, host: "127.0.0.1" });
console.log(JSON.stringify({ url, keys, employees }));

process.on("SIGTERM", async () => {
  await app.close();
  await dispose();
  process.exit(0);
});
