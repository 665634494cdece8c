import { HttpError } from "@server/lib/errors";
import { createEmployee, createEmployer } from "@test/fixtures";
import { buildTestApp, openAgain, type TestApp } from "@test/helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callStatusOf, customerHash } from "./index";
import { answerCheck, requestCheck, startCall } from "./service";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

async function organisation() {
  const employer = await createEmployer(t, { companyName: "Globex" });
  const ada = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Ada Lovelace" });
  const bob = await createEmployee(t, employer.org.id, employer.domain, { fullName: "Bob Builder" });
  return { ...employer, ada, bob };
}

const by = { actorId: null, actorEmail: null, ip: "192.0.2.1", via: "api:cpk_test" };

function start(
  orgId: number,
  employeeId: number,
  customerRef: string,
  direction: "outbound" | "inbound",
  app: TestApp = t,
) {
  return startCall(
    app.app.deps,
    { organisationId: orgId, by },
    {
      employee: { id: employeeId },
      customerRef,
      direction,
      startedVia: "api:cpk_test",
      sessionHash: null,
      renewSame: true,
    },
  );
}

/** Resolves when the listener is called (a notification reached this process). */
function nextEvent(subscribe: (l: () => void) => () => void) {
  return new Promise<void>((resolve) => {
    const stop = subscribe(() => {
      stop();
      resolve();
    });
  });
}

describe("callStatusOf, answerCheck and callEvents (what calls-status builds on)", () => {
  it("shows active outbound calls only, the last outbound call, and the customer's check", async () => {
    const org = await organisation();
    const hash = customerHash(t.config.appSecret, org.org.id, "C-1");
    const db = t.app.deps.db;
    expect(await callStatusOf(db, org.org.id, hash, t.clock.now())).toEqual({
      calling: [],
      lastCallAt: null,
      lastCaller: null,
      check: null,
    });

    // an inbound call is never "calling"
    const inbound = await start(org.org.id, org.bob.id, "C-1", "inbound");
    let status = await callStatusOf(db, org.org.id, hash, t.clock.now());
    expect(status.calling).toEqual([]);
    expect(status.lastCallAt).toBeNull();

    const changed = nextEvent((l) => t.app.callEvents.subscribeCustomer(org.org.id, hash, l));
    const { call } = await start(org.org.id, org.ada.id, "C-1", "outbound");
    await changed;
    status = await callStatusOf(db, org.org.id, hash, t.clock.now());
    expect(status.calling).toEqual([
      { callId: call.id, employee: { firstName: "Ada", fullName: "Ada Lovelace" }, startedAt: call.started_at },
    ]);
    expect(status.lastCallAt).toEqual(call.started_at);
    expect(status.lastCaller).toEqual({ firstName: "Ada" });

    // another organisation's hash of the same reference sees nothing
    const other = await createEmployer(t);
    expect(
      (await callStatusOf(db, other.org.id, customerHash(t.config.appSecret, other.org.id, "C-1"), t.clock.now()))
        .calling,
    ).toEqual([]);

    // a check of the inbound call: the customer's latest check of an active call
    const inboundRow = { ...inbound.call, ended_at: null };
    const checkChanged = nextEvent((l) => t.app.callEvents.subscribeCall(inbound.call.id, l));
    const check = await requestCheck(t.app.deps, { organisationId: org.org.id, by }, inboundRow, null);
    await checkChanged;
    status = await callStatusOf(db, org.org.id, hash, t.clock.now());
    expect(status.check).toMatchObject({
      id: check.id,
      callId: inbound.call.id,
      direction: "inbound",
      status: "pending",
      firstName: "Bob",
      answeredAt: null,
    });

    // a second pending check for the customer: 409, whichever call asks
    const outboundRow = { ...call, ended_at: null };
    await expect(requestCheck(t.app.deps, { organisationId: org.org.id, by }, outboundRow, null)).rejects.toMatchObject(
      {
        statusCode: 409,
      },
    );

    // another customer's hash, or another organisation: 404
    const wrongCustomer = customerHash(t.config.appSecret, org.org.id, "C-2");
    await expect(
      answerCheck(t.app.deps, {
        organisationId: org.org.id,
        checkId: check.id,
        customerHash: wrongCustomer,
        answer: "confirmed",
        via: "component",
      }),
    ).rejects.toMatchObject({ statusCode: 404 });
    await expect(
      answerCheck(t.app.deps, {
        organisationId: other.org.id,
        checkId: check.id,
        answer: "confirmed",
        via: "component",
      }),
    ).rejects.toMatchObject({ statusCode: 404 });

    // answered once, even under concurrent answers
    const answered = nextEvent((l) => t.app.callEvents.subscribeCustomer(org.org.id, hash, l));
    const results = await Promise.allSettled([
      answerCheck(t.app.deps, {
        organisationId: org.org.id,
        checkId: check.id,
        customerHash: hash,
        answer: "denied",
        via: "component",
      }),
      answerCheck(t.app.deps, {
        organisationId: org.org.id,
        checkId: check.id,
        answer: "confirmed",
        via: "api:cpk_test",
      }),
    ]);
    await answered;
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(HttpError);
    expect((lost[0] as PromiseRejectedResult).reason.statusCode).toBe(409);
    status = await callStatusOf(db, org.org.id, hash, t.clock.now());
    expect(status.check?.status).toBe((won[0] as PromiseFulfilledResult<{ status: string }>).value.status);
  });

  it("a pending check reads as expired after 2 minutes and can no longer be answered (409)", async () => {
    const org = await organisation();
    const hash = customerHash(t.config.appSecret, org.org.id, "C-9");
    const { call } = await start(org.org.id, org.ada.id, "C-9", "outbound");
    const check = await requestCheck(t.app.deps, { organisationId: org.org.id, by }, { ...call, ended_at: null }, null);
    // the dialler renews the call meanwhile
    t.clock.advance(90_000);
    await start(org.org.id, org.ada.id, "C-9", "outbound");
    t.clock.advance(31_000);
    const status = await callStatusOf(t.app.deps.db, org.org.id, hash, t.clock.now());
    expect(status.check?.status).toBe("expired");
    await expect(
      answerCheck(t.app.deps, { organisationId: org.org.id, checkId: check.id, answer: "confirmed", via: "component" }),
    ).rejects.toMatchObject({ statusCode: 409 });
  });

  it("each app instance has its own call events: a change made through another instance on the same database reaches this one's listeners, also once that instance closed", async () => {
    const org = await organisation();
    const hash = customerHash(t.config.appSecret, org.org.id, "C-5");
    const database = await openAgain(t.database);
    const second = await buildTestApp({ database: database ?? t.database, clock: t.clock });
    try {
      expect(second.app.callEvents).not.toBe(t.app.callEvents);
      const heard = nextEvent((l) => t.app.callEvents.subscribeCustomer(org.org.id, hash, l));
      await start(org.org.id, org.ada.id, "C-5", "outbound", second);
      await heard;
    } finally {
      await second.app.close();
      await database?.close();
    }
    // The other instance's close took only its own listening with it.
    const heardAgain = nextEvent((l) => t.app.callEvents.subscribeCustomer(org.org.id, hash, l));
    await start(org.org.id, org.bob.id, "C-5", "outbound");
    await heardAgain;
    expect((await callStatusOf(t.app.deps.db, org.org.id, hash, t.clock.now())).calling).toHaveLength(2);
  });
});
