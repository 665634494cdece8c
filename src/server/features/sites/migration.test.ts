import { emptyDatabase, migration } from "@test/unmigrated-database";
import { afterEach, expect, it } from "vitest";

let database: Awaited<ReturnType<typeof emptyDatabase>> | undefined;
afterEach(async () => {
  await database?.close();
});

it("gives existing organisations their sites: the e-mail domain and a website under it verified, others pending", async () => {
  database = await emptyDatabase();
  const { run } = database;
  for (const tag of ["0000_initial", "0001_audit_log_append_only", "0002_audit_actor_email_index"]) {
    await run(migration(tag));
  }
  await run(`
    insert into organisations (id, company_name, domain, website, website_host, created_at) values
      (1, 'Acme', 'acme.example', 'https://www.acme.example', 'www.acme.example', now()),
      (2, 'Globex', 'globex.example', 'https://www.bigbank.example', 'www.bigbank.example', now()),
      (3, 'Initech', 'initech.example', 'https://initech.example', 'initech.example', now()),
      (4, 'Unverified', 'unverified.example', 'https://www.unverified.example', 'www.unverified.example', now());
    insert into users (email, full_name, password_hash, role, organisation_id, email_verified_at, status, created_at) values
      ('boss@acme.example', 'A', 'x', 'superuser', 1, now(), 'active', now()),
      ('boss@globex.example', 'G', 'x', 'superuser', 2, now(), 'active', now()),
      ('boss@initech.example', 'I', 'x', 'superuser', 3, now(), 'active', now()),
      ('boss@unverified.example', 'U', 'x', 'superuser', 4, null, 'pending', now());`);
  await run(migration("0005_organisation_sites"));
  const rows = await run(
    "select organisation_id, host, status, method, length(token) as token_length from organisation_sites order by organisation_id, host",
  );
  expect(rows.map((r) => [r.organisation_id, r.host, r.status, r.method, Number(r.token_length)])).toEqual([
    [1, "acme.example", "verified", "email-domain", 32],
    [1, "www.acme.example", "verified", "email-domain", 32],
    [2, "globex.example", "verified", "email-domain", 32],
    [2, "www.bigbank.example", "pending", null, 32],
    [3, "initech.example", "verified", "email-domain", 32],
    [4, "unverified.example", "pending", null, 32],
    [4, "www.unverified.example", "pending", null, 32],
  ]);
  const tokens = await run("select count(distinct token) as n from organisation_sites");
  expect(Number(tokens[0]?.n)).toBe(7);
});
