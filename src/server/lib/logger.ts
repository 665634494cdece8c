import type { FastifyRequest, FastifyServerOptions } from "fastify";
import type { Config } from "../config";

/**
 * Query parameters whose values are secrets (tokens, codes, passwords) or personal (e-mail), and the
 * single sign-on `state`: they never reach a log.
 */
const SECRET_PARAM = /token|code|secret|password|key|signature|state|email/i;
/** Query parameters that carry personal data (a SCIM `filter` names an e-mail) and never reach a log either. */
const PERSONAL_PARAM = /^filter$/i;

/** A request target with the values of secret-bearing query parameters replaced by "[redacted]". */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAM.test(name) || PERSONAL_PARAM.test(name)) params.set(name, "[redacted]");
  }
  return `${url.slice(0, q)}?${params.toString().replace(/%5Bredacted%5D/g, "[redacted]")}`;
}

/** What a request log line tells about the request: never its cookies, authorization or secret query values. */
function requestFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    remoteAddress: req.ip,
    userAgent: req.headers["user-agent"],
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
    serializers: { req: requestFields },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" } } }
      : {}),
  };
}
