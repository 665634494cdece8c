import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Db, Executor } from "@server/db/client";
import { AUDIT_ACTIONS } from "@shared/audit-actions";
import { sql } from "drizzle-orm";

/**
 * The tamper-evident audit log (docs/decisions/006-tamper-evident-audit-log.md).
 *
 * A job (never the look-up) gives each event, once the transaction that wrote it has ended, the next
 * feed position, salts and commits its personal values (e-mail, address, target, detail) apart, and
 * extends a keyed hash chain over the event: mac = HMAC(key, previous mac ‖ the event with its commits
 * and its address's /24 or /48). The key is derived from APP_SECRET and never stored. Each run ends
 * with a signed checkpoint (position, mac) that is also logged, so a head can be kept elsewhere.
 *
 * The chain lives in its own narrow table (`audit_chain`, one row per event, inserted by the job): the event's
 * own row is written once, by the statement that records it (issue 36: rewriting it cost ~1,170 WAL bytes an
 * event through audit_log's indexes).
 */

/** The personal values of an event, committed apart so that erasure and cutting can delete them. */
const PERSONAL = ["email", "ip", "target", "detail"] as const;
type Personal = (typeof PERSONAL)[number];
const SALT_BYTES = 16;

type Row = {
  id: number;
  at: Date;
  action: string;
  actor_id: number | null;
  actor_email: string | null;
  organisation_id: number | null;
  target: string | null;
  ip: string | null;
  outcome: string;
  detail: Record<string, unknown> | null;
  position: number | null;
  salts: Partial<Record<Personal, string>> | null;
  commits: Record<Personal, string> | null;
  mac: string | null;
};

const key = (appSecret: string) => createHmac("sha256", appSecret).update("callproof audit chain").digest();

const personalValue = (row: Row, field: Personal): unknown =>
  field === "email" ? row.actor_email : field === "ip" ? row.ip : field === "target" ? row.target : row.detail;

const commit = (salt: string, value: unknown) =>
  createHash("sha256")
    .update(`${salt}\0${JSON.stringify(value ?? null)}`)
    .digest("base64url");

/** A stored address cut to its /24 (IPv4) or /48 (IPv6), as retention will cut it; a cut one as it is. */
export function addressPrefix(ip: string | null): string | null {
  if (!ip) return null;
  if (ip.includes("/")) return ip;
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.\d+$/i.exec(ip);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  const kept = groups.slice(0, 3).map((g) => Number.parseInt(g || "0", 16).toString(16));
  while (kept.length > 0 && kept.at(-1) === "0") kept.pop();
  return `${kept.join(":")}::/48`;
}

function chainMac(k: Buffer, previous: string, row: Row, commits: Record<Personal, string>): string {
  const fields = [
    row.position,
    Number(row.id),
    new Date(row.at).toISOString(),
    row.action,
    row.actor_id,
    row.organisation_id,
    row.outcome,
    addressPrefix(row.ip),
    PERSONAL.map((f) => commits[f]),
  ];
  return createHmac("sha256", k)
    .update(`${previous}\0${JSON.stringify(fields)}`)
    .digest("base64url");
}

/**
 * A checkpoint's signature. Version 2 is the one written since erasure events seal what they leave
 * (issue 32); version 1 checkpoints, written before, mark how far the log holds erasure events from
 * before that rule (see `verifyAudit`). Nobody without the key can write either.
 */
const sign = (k: Buffer, kind: string, position: number, mac: string, version: 1 | 2 = 2) =>
  createHmac("sha256", k)
    .update(`checkpoint\0${kind}\0${position}\0${mac}${version === 2 ? "\0sealed erasures" : ""}`)
    .digest("base64url");

/** The lock of the one transaction at a time that positions and chains events (and of erasure and cutting). */
export const CHAIN_LOCK = 724013;

/** The values erasure changes, which its event seals: the actor's e-mail, the target and the detail. */
type Erased = Pick<Row, "id" | "actor_email" | "target" | "detail">;

/**
 * What an erasure of `account` left in one event, sealed with the chain's key (16 bytes of an HMAC): the
 * erasure event lists one per event it changed, so that `audit verify` accepts those values without their
 * salts, and only those. Without APP_SECRET nobody can seal other values, or another event or account.
 */
function erasureSeal(k: Buffer, account: number, row: Erased): string {
  return createHmac("sha256", k)
    .update(
      `erased\0${account}\0${Number(row.id)}\0${JSON.stringify([row.actor_email, row.target, row.detail ?? null])}`,
    )
    .digest()
    .subarray(0, 16)
    .toString("base64url");
}

/**
 * The detail of an erasure's audit event, read in the erasure's transaction after its changes: the
 * changed events' ids (`rows`) and, in the same order, the seal of what erasure left in each (`left`).
 */
export async function erasureDetail(
  tx: Executor,
  appSecret: string,
  account: number,
  ids: number[],
): Promise<{ rows: number[]; left: string[] }> {
  const unique = [...new Set(ids.map(Number))].sort((a, b) => a - b);
  if (unique.length === 0) return { rows: [], left: [] };
  const k = key(appSecret);
  const rows = rowsOf(
    await tx.execute(sql`
      select id, actor_email, target, detail from audit_log
      where id = any(string_to_array(${unique.join(",")}::text, ',')::bigint[]) order by id`),
  );
  return { rows: rows.map((r) => Number(r.id)), left: rows.map((r) => erasureSeal(k, account, r)) };
}

async function allowMaintenance(tx: Executor) {
  await tx.execute(sql`select set_config('callproof.audit_maintenance', 'on', true)`);
}

const rowsOf = (result: unknown) => (result as { rows: Row[] }).rows;

/** The mac the chain continues from: the newest event's, or the newest cut's, or "" at the start. */
async function chainHead(tx: Executor): Promise<{ position: number; mac: string }> {
  const [last] = rowsOf(await tx.execute(sql`select position, mac from audit_chain order by position desc limit 1`));
  if (last?.mac && last.position !== null) return { position: Number(last.position), mac: last.mac };
  const cut = rowsOf(
    await tx.execute(sql`select position, mac from audit_checkpoints where kind = 'cut' order by id desc limit 1`),
  );
  return cut[0]?.mac ? { position: Number(cut[0].position), mac: cut[0].mac } : { position: 0, mac: "" };
}

/**
 * Events not chained yet: those above the mark (`audit_chain_mark.below`, every event at or below it is
 * chained) without a chain row. The mark keeps this a look at the newest events only, whatever the history;
 * the chain's side is bounded too, or a plan that joins by hash or merge reads the whole chain (4.8 ms at 32,000
 * events, against 0.08 ms bounded).
 */
const unchainedSql = (below: number) =>
  sql`audit_log a where a.id > ${below}::bigint
    and not exists (select 1 from audit_chain c where c.event_id = a.id and c.event_id > ${below}::bigint)`;

type Mark = { below: number; candidate: number | null; ended: boolean | null };

async function chainMark(tx: Executor): Promise<Mark> {
  const [mark] = (
    (await tx.execute(sql`
      select below, candidate, candidate_xmax::xid8 <= pg_snapshot_xmin(pg_current_snapshot()) as ended
      from audit_chain_mark where id = 1`)) as unknown as { rows: Mark[] }
  ).rows;
  return mark
    ? {
        below: Number(mark.below),
        candidate: mark.candidate === null ? null : Number(mark.candidate),
        ended: mark.ended,
      }
    : { below: 0, candidate: null, ended: null };
}

/**
 * Moves the mark at a look from it, whose first unchained event is `firstUnchained` (null: none). An event id is
 * taken when the row is inserted, so an event with a smaller id than the newest may still be in a transaction
 * that has not ended: the newest id seen (`candidate`) is reachable only once every transaction running when it
 * was read has ended (the snapshot's xmin has passed that snapshot's xmax). Then every event up to it is visible,
 * so every event below the first unchained one, up to the candidate, is chained: the mark moves there. Once it
 * reaches the candidate, the newest id now is the next candidate. A long transaction holds the mark back, never
 * loses an event. (The id is drawn within the INSERT that writes the row and takes a transaction id: a process
 * stalled between those two instants past a whole run would leave its event unchained, which \`audit verify\`
 * names, as it names an inserted one.)
 */
async function moveMark(tx: Executor, mark: Mark, firstUnchained: number | null) {
  if (mark.candidate !== null && !mark.ended) return;
  const reach = mark.candidate ?? mark.below;
  const below = firstUnchained === null ? reach : Math.min(reach, firstUnchained - 1);
  if (below < reach) {
    await tx.execute(
      sql`update audit_chain_mark set below = ${below}::bigint where id = 1 and below <> ${below}::bigint`,
    );
    return;
  }
  await tx.execute(sql`
    insert into audit_chain_mark (id, below, candidate, candidate_xmax)
    select 1, ${below}::bigint, coalesce(max(id), ${below}::bigint), pg_snapshot_xmax(pg_current_snapshot())::text
    from audit_log where id > ${below}::bigint
    on conflict (id) do update set below = excluded.below, candidate = excluded.candidate,
      candidate_xmax = excluded.candidate_xmax
    where audit_chain_mark.below <> excluded.below or audit_chain_mark.candidate is distinct from excluded.candidate`);
}

/** Whether an event waits to be chained (the feed checkpoints first when one does). */
export async function unchainedWaiting(db: Db): Promise<boolean> {
  const { below } = await chainMark(db);
  return rowsOf(await db.execute(sql`select a.id from ${unchainedSql(below)} order by a.id limit 1`)).length > 0;
}

/**
 * Checkpoints every event whose transaction has ended (in batches): positions, commits and the chain,
 * then a signed head. One process at a time (an advisory lock). Returns the head, or null when there
 * was nothing new. Batches are small and the job yields between them: PGlite runs one statement at a
 * time, and a 5,000-row batch held every look-up for about 2 s (bench/README.md, issue 19). With PGlite
 * in its own thread a batch's transaction also waits for this thread between its statements: batches of
 * 500 rows set the look-up's p99 (56 ms), batches of 100 did not (37 ms), at 270 µs a row instead of 215.
 */
export async function checkpointAudit(
  deps: { db: Db; config: { appSecret: string }; clock: { now(): Date }; log: { info(f: object, m: string): void } },
  batch = 100,
): Promise<{ position: number; mac: string } | null> {
  const k = key(deps.config.appSecret);
  let head: { position: number; mac: string } | null = null;
  // A run looks from the mark once, then above the last event it chained: from the mark, batch n walked past the
  // n - 1 batches chained before it (under 2,000 events a second, 10.5-14.5 ms a batch). An event that commits
  // late below that point waits for the next run's look from the mark.
  let after: number | null = null;
  for (;;) {
    const done = await deps.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${CHAIN_LOCK})`);
      const mark = await chainMark(tx);
      // A statement sees only committed rows: an event still being written is positioned by a later run.
      const rows = rowsOf(
        await tx.execute(sql`
          select id, at, action, actor_id, actor_email, organisation_id, target, ip, outcome, detail
          from ${unchainedSql(after ?? mark.below)} order by a.id limit ${batch}`),
      );
      if (after === null) await moveMark(tx, mark, rows[0] ? Number(rows[0].id) : null);
      if (rows.length === 0) return null;
      let { mac } = await chainHead(tx);
      const positions = rowsOf(
        await tx.execute(
          sql`select nextval('audit_feed_position') as position from generate_series(1, ${rows.length})`,
        ),
      ).map((r) => Number(r.position));
      const updates: {
        id: number;
        position: number;
        organisation_id: number | null;
        salts: string;
        commits: string;
        mac: string;
      }[] = [];
      // the batch's salts, 16 random bytes each, drawn in one call: a call each cost about 5 µs (4 an event)
      const random = randomBytes(SALT_BYTES * PERSONAL.length * rows.length);
      let drawn = 0;
      rows.forEach((row, i) => {
        row.position = positions[i] as number;
        const salts = {} as Record<Personal, string>;
        const commits = {} as Record<Personal, string>;
        for (const f of PERSONAL) {
          salts[f] = random.toString("base64url", drawn, drawn + SALT_BYTES);
          drawn += SALT_BYTES;
          commits[f] = commit(salts[f], personalValue(row, f));
        }
        mac = chainMac(k, mac, row, commits);
        updates.push({
          id: Number(row.id),
          position: row.position,
          organisation_id: row.organisation_id,
          salts: JSON.stringify(salts),
          commits: JSON.stringify(commits),
          mac,
        });
      });
      await tx.execute(sql`
        insert into audit_chain (event_id, position, organisation_id, salts, commits, mac)
        select u.id, u.position, u.organisation_id, u.salts::jsonb, u.commits::jsonb, u.mac
        from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb)
          as u(id bigint, position bigint, organisation_id int, salts text, commits text, mac text)`);
      const last = updates.at(-1) as (typeof updates)[number];
      await tx.execute(sql`
        insert into audit_checkpoints (at, kind, position, mac, signature)
        values (${deps.clock.now().toISOString()}::timestamptz, 'head', ${last.position}, ${last.mac},
          ${sign(k, "head", last.position, last.mac)})`);
      return { position: last.position, mac: last.mac, count: rows.length, lastId: last.id };
    });
    if (!done) return head;
    head = { position: done.position, mac: done.mac };
    deps.log.info({ position: done.position, hash: done.mac, events: done.count }, "audit checkpoint");
    if (done.count < batch) return head;
    after = done.lastId;
    // Let the requests that queued behind this batch run before the next one.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Retention: deletes the checkpointed events older than `before` up to the newest whole segment (every
 * event at or below a position), at most the oldest `limit` of them (a batch: the job calls again while
 * it deleted as many), and records the cut in a signed checkpoint the chain continues from.
 */
export async function cutAuditBefore(
  tx: Executor,
  appSecret: string,
  before: Date,
  now: Date,
  limit: number,
): Promise<number> {
  await allowMaintenance(tx);
  // Walked by position from the oldest event (an index scan that stops at the first event kept, or at the
  // batch's last position), then back to the newest deleted one: reads about what it deletes, whatever the
  // history and however far behind retention is (issue 36).
  const [edge] = rowsOf(
    await tx.execute(sql`
      with bound as (
        -- the batch's last position (the limit-th from the oldest), or none when fewer are left
        select coalesce((select position from audit_chain order by position offset ${limit - 1}::int limit 1),
          ${Number.MAX_SAFE_INTEGER}::bigint) as position
      ),
      first_kept as (
        select c.position from audit_chain c join audit_log a on a.id = c.event_id
        where a.at >= ${before.toISOString()}::timestamptz and c.position <= (select position from bound)
        order by c.position limit 1
      )
      select c.position, c.mac from audit_chain c join audit_log a on a.id = c.event_id
      where c.position < coalesce((select position from first_kept), (select max(position) + 1 from audit_chain))
        and c.position <= (select position from bound)
        and a.at < ${before.toISOString()}::timestamptz
      order by c.position desc limit 1`),
  );
  if (!edge?.mac || edge.position === null) return 0;
  const position = Number(edge.position);
  const gone = await tx.execute(sql`
    with chain as (delete from audit_chain where position <= ${position} returning event_id)
    delete from audit_log where id in (select event_id from chain) returning id`);
  const k = key(appSecret);
  await tx.execute(sql`
    insert into audit_checkpoints (at, kind, position, mac, signature)
    values (${now.toISOString()}::timestamptz, 'cut', ${position}, ${edge.mac}, ${sign(k, "cut", position, edge.mac)})`);
  return rowsOf(gone).length;
}

type ErasureOf = { position: number; account: number; left: string | null };

/**
 * The chained erasure events, by the id of each event they name: their position, the account erased,
 * and the seal of what they left in that event (null for an erasure from before seals, trusted only up
 * to `unsealedUntil`). An erasure event whose own target or detail is not what the chain committed is
 * left out (and named by the chain itself).
 */
async function erasuresByRow(db: Db, unsealedUntil: number): Promise<Map<number, ErasureOf[]>> {
  const byRow = new Map<number, ErasureOf[]>();
  const events = rowsOf(
    await db.execute(sql`
      select c.position, a.target, a.detail, c.salts, c.commits from audit_log a join audit_chain c on c.event_id = a.id
      where a.action = ${AUDIT_ACTIONS.eraseAccount} and a.outcome = 'success'`),
  );
  for (const e of events) {
    const position = Number(e.position);
    const committed = (f: "target" | "detail") => {
      const salt = e.salts?.[f];
      return !!salt && !!e.commits && commit(salt, personalValue(e, f)) === e.commits[f];
    };
    const account = Number(e.target);
    if (!committed("target") || !committed("detail") || !Number.isSafeInteger(account)) continue;
    const rows = e.detail?.rows;
    const left = e.detail?.left;
    if (!Array.isArray(rows)) continue;
    const sealed = Array.isArray(left) && left.length === rows.length && left.every((l) => typeof l === "string");
    if (!sealed && position > unsealedUntil) continue;
    rows.forEach((id, i) => {
      const list = byRow.get(Number(id)) ?? [];
      list.push({ position, account, left: sealed ? (left[i] as string) : null });
      byRow.set(Number(id), list);
    });
  }
  return byRow;
}

/** The latest chained erasure after the event at `position` that names it, if any. */
function latestErasure(erasures: Map<number, ErasureOf[]>, row: Row, position: number): ErasureOf | null {
  let latest: ErasureOf | null = null;
  for (const e of erasures.get(Number(row.id)) ?? []) {
    if (e.position > position && (!latest || e.position > latest.position)) latest = e;
  }
  return latest;
}

export type VerifyResult =
  | { intact: true; events: number; pending: number; head: { position: number; mac: string } | null }
  | { intact: false; eventId: number | null; reason: string; events: number };

/**
 * Checks the whole chain: every checkpointed event's commits against its values, every mac, every signed
 * checkpoint, and `expect` (a head kept elsewhere). A value may be missing its salt only where the product
 * deleted it: an address cut to its prefix (which the mac covers), or a value that the latest erasure
 * event naming the event, chained at a later position, sealed as what it left (`erasureSeal`: the key
 * is needed to make one, so an erasure event written into the database by hand, even once the job has
 * chained it, accepts nothing). Events not checkpointed yet are counted apart, never as intact; one among
 * checkpointed events counts as inserted.
 */
export async function verifyAudit(
  db: Db,
  appSecret: string,
  expect?: { position: number; mac: string },
): Promise<VerifyResult> {
  const k = key(appSecret);
  const checkpoints = (
    (await db.execute(sql`select kind, position, mac, signature from audit_checkpoints order by id`)) as unknown as {
      rows: { kind: string; position: number; mac: string; signature: string }[];
    }
  ).rows;
  // Erasure events from before they sealed what they left are trusted only up to the last checkpoint signed
  // before (version 1): nobody without the key can sign one now, so a forgery is never among them.
  let unsealedUntil = 0;
  for (const c of checkpoints) {
    const position = Number(c.position);
    if (sign(k, c.kind, position, c.mac) === c.signature) continue;
    if (sign(k, c.kind, position, c.mac, 1) === c.signature) {
      unsealedUntil = Math.max(unsealedUntil, position);
      continue;
    }
    return {
      intact: false,
      eventId: null,
      reason: `checkpoint at position ${c.position} is not signed by this key`,
      events: 0,
    } as const;
  }
  const cut = checkpoints.filter((c) => c.kind === "cut").at(-1);
  const heads = new Map(
    checkpoints
      .filter((c) => c.kind === "head" && Number(c.position) > Number(cut?.position ?? 0))
      .map((c) => [Number(c.position), c.mac]),
  );
  const erasures = await erasuresByRow(db, unsealedUntil);

  let previous = cut?.mac ?? "";
  let after = Number(cut?.position ?? 0);
  let events = 0;
  let lastId = 0;
  let last: { position: number; mac: string } | null = null;
  for (;;) {
    const rows = rowsOf(
      await db.execute(sql`
        select a.*, c.position, c.salts, c.commits, c.mac from audit_chain c join audit_log a on a.id = c.event_id
        where c.position > ${after} order by c.position limit 5000`),
    );
    for (const row of rows) {
      const fail = (reason: string) => ({ intact: false, eventId: Number(row.id), reason, events }) as const;
      const position = Number(row.position);
      if (!row.commits || !row.mac) return fail("its chain fields are missing");
      // A value without its salt is accepted only as the latest chained erasure after the event left it.
      let erasure: ReturnType<typeof latestErasure> | undefined;
      for (const f of PERSONAL) {
        const salt = row.salts?.[f];
        if (salt) {
          if (commit(salt, personalValue(row, f)) !== row.commits[f]) return fail(`its ${f} was changed`);
          continue;
        }
        if (f === "ip" && row.ip !== null) {
          // Only an address cut to its prefix (which the mac covers) may lose its salt.
          if (row.ip.includes("/")) continue;
          return fail("its ip is gone without an erasure or a cut");
        }
        erasure ??= latestErasure(erasures, row, position);
        if (!erasure) return fail(`its ${f} is gone without an erasure or a cut`);
        if (erasure.left !== null && erasure.left !== erasureSeal(k, erasure.account, row)) {
          return fail(`its ${f} was changed: it is not what the erasure at position ${erasure.position} left`);
        }
      }
      const mac = chainMac(k, previous, { ...row, position }, row.commits);
      if (mac !== row.mac) return fail("it was changed, inserted, or an event before it was removed");
      const checkpointed = heads.get(position);
      if (checkpointed !== undefined && checkpointed !== mac) return fail("it does not match its signed checkpoint");
      heads.delete(position);
      previous = mac;
      after = position;
      lastId = Math.max(lastId, Number(row.id));
      last = { position, mac };
      events++;
    }
    if (rows.length < 5000) break;
  }
  const missingHead = [...heads.keys()].sort((a, b) => a - b)[0];
  if (missingHead !== undefined) {
    return {
      intact: false,
      eventId: null,
      reason: `the event at signed position ${missingHead} was removed`,
      events,
    } as const;
  }
  if (expect && !(last && last.position >= expect.position)) {
    return {
      intact: false,
      eventId: null,
      reason: `the kept head ${expect.position} is beyond the log`,
      events,
    } as const;
  }
  if (expect) {
    const [row] = rowsOf(
      await db.execute(sql`
        select a.id, c.mac from audit_chain c join audit_log a on a.id = c.event_id where c.position = ${expect.position}`),
    );
    if (!row || row.mac !== expect.mac) {
      return {
        intact: false,
        eventId: row ? Number(row.id) : null,
        reason: "it does not match the kept head",
        events,
      } as const;
    }
  }
  // An unpositioned event among checkpointed ones is there only for a moment (its transaction ended after a
  // later one's, and the next run positions it); a stopped server has checkpointed everything.
  const [inserted] = rowsOf(
    await db.execute(sql`select a.id from ${unchainedSql(-(2 ** 53))} and a.id < ${lastId} order by a.id limit 1`),
  );
  const pending = rowsOf(await db.execute(sql`select count(*)::int as id from ${unchainedSql(-(2 ** 53))}`))[0];
  if (inserted) {
    return {
      intact: false,
      eventId: Number(inserted.id),
      reason: "it stands among checkpointed events without a position (inserted, or still being written)",
      events,
    } as const;
  }
  return { intact: true, events, pending: Number(pending?.id ?? 0), head: last } as const;
}
