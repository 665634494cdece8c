import type { FastifyRequest, FastifyServerOptions } from "fastify";
import type { Config } from "../config";
import { loggableError } from "./database-errors";

/**
 * Query parameters whose values are secrets (tokens, codes, passwords) or personal (e-mail), and the
 * single sign-on `state`: they never reach a log.
 */
const SECRET_PARAM = /token|code|secret|password|key|signature|state|email/i;
/** Query parameters that carry personal data (a SCIM `filter` names an e-mail) and never reach a log either. */
const PERSONAL_PARAM = /^filter$/i;

/**
 * What a log keeps of a path segment or a query value as sent: short, printable ASCII with no escapes
 * (an id, a page number, a page's path). Anything else (percent-escapes, non-ASCII, long text) could be
 * whatever a client sent, and is logged as "[redacted]".
 */
const PLAIN = /^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,64}$/;
/** The same for a query value, which may also hold slashes (`iss=https://…`). */
const PLAIN_VALUE = /^[A-Za-z0-9._~!$&'()*+,;=:@/-]{0,64}$/;
const REDACTED = "[redacted]";

/**
 * A request target fit for a log: the values of secret-bearing or personal query parameters replaced by
 * "[redacted]", and so is any path segment, query name or value that is not plain (see PLAIN).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q < 0 ? url : url.slice(0, q))
    .split("/")
    .map((segment) => (PLAIN.test(segment) ? segment : REDACTED))
    .join("/");
  if (q < 0) return path;
  const query = [...new URLSearchParams(url.slice(q + 1))].map(([name, value]) => {
    if (!PLAIN.test(name)) return `${REDACTED}=${REDACTED}`;
    const hidden = SECRET_PARAM.test(name) || PERSONAL_PARAM.test(name) || !PLAIN_VALUE.test(value);
    return `${name}=${hidden ? REDACTED : encodeURIComponent(value)}`;
  });
  return `${path}?${query.join("&")}`;
}

/** A User-Agent fit for a log: printable ASCII, 200 characters at most. */
const loggableUserAgent = (ua: string | undefined) => ua?.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);

/** What a request log line tells about the request: never its cookies, authorization or secret query values. */
function requestFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    remoteAddress: req.ip,
    userAgent: loggableUserAgent(req.headers["user-agent"]),
  };
}

/**
 * The server's pino options: JSON lines at LOG_LEVEL, each line of a request carrying its `requestId`;
 * readable colourised lines when writing to a terminal outside production (pino-pretty).
 */
export function loggerOptions(
  config: Pick<Config, "logLevel">,
  env: { nodeEnv?: string; isTty?: boolean } = {
    nodeEnv: process.env.NODE_ENV,
    isTty: process.stdout.isTTY,
  },
): Exclude<FastifyServerOptions["logger"], boolean | undefined> {
  const pretty = env.isTty === true && env.nodeEnv !== "production";
  return {
    level: config.logLevel,
    redact: {
      paths: [
        "req.headers.cookie",
        "req.headers.authorization",
        'req.headers["x-xsrf-token"]',
        'res.headers["set-cookie"]',
        "headers.cookie",
        "headers.authorization",
      ],
      censor: "[redacted]",
    },
    // every `log.x({err})`: no query parameters, quoted values or driver details (lib/database-errors.ts)
    serializers: { req: requestFields, err: loggableError },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" } } }
      : {}),
  };
}
