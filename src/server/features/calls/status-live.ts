import { createReport, mailReportSummary } from "@server/features/reports";
import type { App } from "@server/types";
import type { ComponentEnd, ComponentState } from "@shared/call-status-protocol";
import type { Language } from "@shared/languages";
import type { ReportBody } from "@shared/reports";
import type { FastifyRequest } from "fastify";
import { answerCheck, callStatusOf } from "./service";
import type { StatusStreams } from "./status-stream";
import { findTokensById, STATUS_TOKENS_CHANNEL, type StatusToken, toComponentState } from "./status-tokens";

/** The note of a report sent with the button alone (a stored report holds at least one field). */
export const NO_DETAILS = "Reported from the call-status component (no details given).";

/** How often this process re-checks the tokens of its open streams (expiry, a key or organisation gone). */
const RECHECK_EVERY_MS = 5_000;

/** The customer's changes (calls-core's one LISTEN channel): the stream looks again. */
export const subscribeCustomer = (
  app: Pick<App, "callEvents">,
  organisationId: number,
  customerHash: string,
  listener: () => void,
) => app.callEvents.subscribeCustomer(organisationId, customerHash, listener);

/** A stream's look: its token as it is now, then the customer's state (or why the stream ends). */
export async function look(
  app: App,
  tokenId: number,
): Promise<{ state: ComponentState } | { end: ComponentEnd["reason"] }> {
  const now = app.deps.clock.now();
  const token = (await findTokensById(app.deps.db, [tokenId], now)).get(tokenId);
  if (!token) return { end: "revoked" };
  if (!token.usable) return { end: token.endReason ?? "revoked" };
  const status = await callStatusOf(app.deps.db, token.organisationId, token.customerHash, now);
  return { state: toComponentState(token, status, now) };
}

/** Ends the streams whose token stopped working, among `streams` (one statement for all of them). */
async function recheck(app: App, streams: StatusStreams, only?: number) {
  const open = [...streams.open].filter((s) => only === undefined || s.organisationId === only);
  if (open.length === 0) return;
  const tokens = await findTokensById(app.deps.db, [...new Set(open.map((s) => s.tokenId))], app.deps.clock.now());
  for (const stream of open) {
    const token = tokens.get(stream.tokenId);
    if (!token) stream.end("revoked");
    else if (!token.usable) stream.end(token.endReason ?? "revoked");
  }
}

/** This process's streams of an organisation look at their tokens again (after a revocation). */
export const recheckOrganisation = (app: App, organisationId: number) => recheck(app, streamsOf(app), organisationId);

/** Each app's open streams (keyed by its deps, the same object in every plugin scope of one app). */
const registry = new WeakMap<object, StatusStreams>();

/** The open component streams of this app (its process). */
export function streamsOf(app: Pick<App, "deps">): StatusStreams {
  const streams = registry.get(app.deps);
  if (!streams) throw new Error("the call-status routes are not registered");
  return streams;
}

/**
 * Keeps this process's streams honest: a revocation anywhere (the tokens channel) ends them at once, the
 * re-check job ends those whose token expired or whose key or organisation went, and the server's stop ends
 * them all (the component reconnects to another process).
 */
export function watch(app: App, streams: StatusStreams) {
  registry.set(app.deps, streams);
  let stop = async () => {};
  app.addHook("onReady", async () => {
    stop = await app.deps.notifications.listen(STATUS_TOKENS_CHANNEL, (payload) => {
      const organisationId = Number(payload);
      if (Number.isSafeInteger(organisationId)) {
        app.deps.background.run("call-status revocation", () => recheck(app, streams, organisationId));
      }
    });
  });
  app.deps.background.every("call-status token re-check", RECHECK_EVERY_MS, () => recheck(app, streams));
  app.addHook("preClose", async () => {
    streams.endAll();
    await stop();
  });
}

/** The customer's answer from the component: recorded `via: "component"` with the request's address. */
export function answer(
  app: App,
  request: FastifyRequest,
  token: StatusToken,
  checkId: string,
  given: "confirmed" | "denied",
) {
  return answerCheck(app.deps, {
    organisationId: token.organisationId,
    checkId,
    customerHash: token.customerHash,
    answer: given,
    via: "component",
    ip: request.ip,
  });
}

/** **Report this call** from the component: to the token's organisation, as the widget's reports are. */
export async function report(
  app: App,
  request: FastifyRequest,
  token: StatusToken,
  body: ReportBody,
  language: Language,
): Promise<string> {
  const given = body.callerNumber || body.claimedName || body.note;
  const { message, organisationId } = await createReport(app.deps, request.actor, {
    // The button alone reports the call: a report holds at least one field.
    body: given ? body : { note: NO_DETAILS },
    origin: token.origin,
    language,
    callStatus: { organisationId: token.organisationId },
  });
  if (organisationId !== null) {
    app.deps.background.run("reported-calls summary", () => mailReportSummary(app.deps, organisationId));
  }
  return message;
}
