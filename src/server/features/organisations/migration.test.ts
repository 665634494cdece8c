import { emptyDatabase, journal, migration } from "@test/unmigrated-database";
import { afterEach, expect, it } from "vitest";

let database: Awaited<ReturnType<typeof emptyDatabase>> | undefined;
afterEach(async () => {
  await database?.close();
});

it("0024 marks deactivated only the organisations an admin deactivated that have no active superuser, and gives their remaining accounts the cascade", async () => {
  database = await emptyDatabase();
  const { run } = database;
  for (const { tag } of journal.entries.filter((e) => e.idx < 24)) await run(migration(tag));
  await run(`
    insert into organisations (id, company_name, domain, website, website_host, created_at) values
      (1, 'Alpha', 'alpha.test', 'https://alpha.test', 'alpha.test', now()),
      (2, 'Beta', 'beta.test', 'https://beta.test', 'beta.test', now()),
      (3, 'Gamma', 'gamma.test', 'https://gamma.test', 'gamma.test', now()),
      (4, 'Delta', 'delta.test', 'https://delta.test', 'delta.test', now()),
      (5, 'Epsilon', 'epsilon.test', 'https://epsilon.test', 'epsilon.test', now());
    insert into users (id, email, full_name, password_hash, role, organisation_id, status, created_at) values
      -- Alpha: deactivated by domain; Ann (SCIM, under the domain) was missed and is still active
      (1, 'boss@alpha.test', 'A', 'x', 'superuser', 1, 'deactivated', now()),
      (2, 'ann@eu.alpha.test', 'Ann', 'x', 'client', 1, 'active', now()),
      -- Beta: its employer deactivated by an admin
      (3, 'boss@beta.test', 'B', 'x', 'superuser', 2, 'deactivated', now()),
      -- Gamma: its employer still pending (no admin deactivated it)
      (4, 'boss@gamma.test', 'G', 'x', 'superuser', 3, 'pending', now()),
      -- Delta: its only employer erased (deactivated), no admin deactivation
      (5, 'erased-5@erased.invalid', 'Erased account', 'x', 'superuser', 4, 'deactivated', now()),
      (6, 'dan@delta.test', 'Dan', 'x', 'client', 4, 'active', now()),
      -- Epsilon: an old deactivation event, but a superuser is active
      (7, 'boss@epsilon.test', 'E', 'x', 'superuser', 5, 'active', now());
    insert into audit_log (at, actor_id, organisation_id, action, target, outcome, detail) values
      ('2026-10-01T10:00:00Z', 99, 1, 'admin.deactivate-by-domain', 'alpha.test', 'success', '{"count": 1}'),
      ('2026-10-02T10:00:00Z', 99, 2, 'admin.deactivate-employer', '3', 'success', '{"count": 1}'),
      ('2026-10-03T10:00:00Z', 99, 4, 'admin.deactivate-employer', '5', 'failure', '{}'),
      ('2026-10-04T10:00:00Z', 99, 5, 'admin.deactivate-employer', '7', 'success', '{"count": 1}');
    insert into sessions (token_hash, user_id, created_at, last_seen_at, expires_at) values
      ('s-ann', 2, now(), now(), now() + interval '1 day'),
      ('s-dan', 6, now(), now(), now() + interval '1 day');
    insert into sso_links (user_id, organisation_id, issuer, subject, created_at) values
      (2, 1, 'https://idp.alpha.test', 'ann', now()),
      (6, 4, 'https://idp.delta.test', 'dan', now());
    insert into api_keys (organisation_id, name, scopes, prefix, key_hash, created_by, created_at) values
      (1, 'alpha key', '{codes:write}', 'cpk_alpha000', 'h1', 1, now()),
      (4, 'delta key', '{codes:write}', 'cpk_delta000', 'h2', 5, now());
  `);
  await run(migration("0024_organisation_status"));

  const orgs = await run("select id, status, deactivated_at from organisations order by id");
  expect(orgs.map((o) => [o.id, o.status])).toEqual([
    [1, "deactivated"],
    [2, "deactivated"],
    [3, "active"],
    [4, "active"],
    [5, "active"],
  ]);
  expect(new Date(orgs[0]?.deactivated_at as string).toISOString()).toBe("2026-10-01T10:00:00.000Z");
  const people = await run("select id, status from users order by id");
  expect(Object.fromEntries(people.map((u) => [u.id, u.status]))).toEqual({
    1: "deactivated",
    2: "deactivated",
    3: "deactivated",
    4: "pending",
    5: "deactivated",
    6: "active",
    7: "active",
  });
  expect((await run("select token_hash from sessions")).map((s) => s.token_hash)).toEqual(["s-dan"]);
  expect((await run("select subject from sso_links")).map((l) => l.subject)).toEqual(["dan"]);
  const keys = await run("select name, revoked_at is not null as revoked from api_keys order by id");
  expect(keys).toEqual([
    { name: "alpha key", revoked: true },
    { name: "delta key", revoked: false },
  ]);
});
