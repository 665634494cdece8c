import type { FastifyReply } from "fastify";

/**
 * The headers of every event stream (the codes', the calls', the call-status component's): never cached or
 * buffered by a proxy, and the connection ends with the stream. A stream ends when the server stops; kept
 * alive, its socket would become idle only after the stop had closed the idle ones, and would hold the
 * stop for the keep-alive timeout (72 s) while a client that honours `Keep-Alive: timeout` kept it open.
 */
export function sseHeaders(reply: FastifyReply) {
  reply
    .header("content-type", "text/event-stream; charset=utf-8")
    .header("cache-control", "no-store")
    .header("x-accel-buffering", "no")
    .header("connection", "close");
}
