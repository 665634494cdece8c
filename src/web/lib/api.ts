import { ERROR_CODES, type ErrorCode } from "@shared/error-codes";
import createClient, {
  createFinalURL,
  createQuerySerializer,
  defaultPathSerializer,
  type Middleware,
} from "openapi-fetch";
import type { paths } from "./api-schema";

/**
 * A failed API call: the HTTP `status` (0 when the network failed), the server's stable `code` and
 * its `serverMessage` (both undefined when the answer had none). `message` is the server's text, or
 * "request failed (HTTP n)" / "network error" without one.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode | undefined,
    readonly serverMessage: string | undefined,
  ) {
    super(serverMessage ?? (status ? `request failed (HTTP ${status})` : "network error"));
  }
}

/** The server's message for a failed call, else `fallback`. */
export function errorMessage(error: unknown, fallback: string): string {
  return (error instanceof ApiError && error.serverMessage) || fallback;
}

const CSRF_COOKIE = "XSRF-TOKEN";
const CSRF_HEADER = "X-XSRF-TOKEN";
const KNOWN_CODES = new Set<string>(Object.values(ERROR_CODES));

function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

/** A non-empty text field of an error answer (`message`, `code`). */
function textOf(body: unknown, key: "message" | "code"): string | undefined {
  if (!body || typeof body !== "object" || !(key in body)) return undefined;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === "string" && value.trim() ? value : undefined;
}

function codeOf(body: unknown): ErrorCode | undefined {
  const code = textOf(body, "code");
  return code && KNOWN_CODES.has(code) ? (code as ErrorCode) : undefined;
}

async function bodyOf(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.clone().text());
  } catch {
    return undefined;
  }
}

const isUnsafe = (method: string) => method !== "GET" && method !== "HEAD";

/**
 * The CSRF token cookie echoed in a header on unsafe methods (the public config read first when there is
 * no cookie yet: any API answer sets one, so no request is sent bound to be refused), and a 403 for a stale
 * token retried once, since the server sends a fresh token cookie with that answer.
 */
function csrf(): Middleware {
  const copies = new Map<string, Request>();
  const withToken = (request: Request) => {
    const token = readCookie(CSRF_COOKIE);
    if (token) request.headers.set(CSRF_HEADER, token);
    return request;
  };
  return {
    async onRequest({ request, id }) {
      if (!isUnsafe(request.method)) return undefined;
      if (!readCookie(CSRF_COOKIE)) {
        await fetch(apiHref("/api/public-config"), { credentials: "same-origin" }).catch(() => {});
      }
      withToken(request);
      copies.set(id, request.clone());
      return request;
    },
    async onResponse({ response, id }) {
      const copy = copies.get(id);
      copies.delete(id);
      if (!copy || response.status !== 403 || textOf(await bodyOf(response), "code") !== ERROR_CODES.csrfFailed) {
        return undefined;
      }
      return fetch(withToken(copy));
    },
    onError({ id }) {
      copies.delete(id);
    },
  };
}

/**
 * The one client of the app's API, typed by the types generated from the server's OpenAPI document
 * (`npm run api:types`): same-origin cookies, JSON in and out, the CSRF middleware above. Call it through
 * `call`, which answers the data or throws an ApiError.
 */
export const client = createClient<paths>({
  baseUrl: "",
  credentials: "same-origin",
  headers: { Accept: "application/json" },
  // Looked up at each call, not when the module loads.
  fetch: (request: Request) => globalThis.fetch(request),
});
client.use(csrf());

type Answer = { data?: unknown; error?: unknown; response: Response };
/** The data of a successful answer (openapi-fetch's success branch). */
type DataOf<A> = A extends { data: infer D; error?: never } ? D : never;

/** Awaits a call of `client`: its data, or an ApiError (status 0 when the network failed). Aborting rethrows. */
export async function call<A extends Answer>(pending: Promise<A>): Promise<DataOf<A>> {
  let answer: A;
  try {
    answer = await pending;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, undefined, undefined);
  }
  if (!answer.response.ok) {
    throw new ApiError(answer.response.status, codeOf(answer.error), textOf(answer.error, "message"));
  }
  return answer.data as DataOf<A>;
}

/** The paths the API answers a GET on (for links, downloads and event streams). */
export type GetPath = { [P in keyof paths]: [NonNullable<paths[P]["get"]>] extends [never] ? never : P }[keyof paths];
type GetParameters<P extends GetPath> = NonNullable<paths[P]["get"]>["parameters"];

/**
 * The URL of a GET path of the API, with its path and query parameters, for what is not a fetch: a
 * download link, an event stream, a page the browser goes to.
 */
export function apiHref<P extends GetPath>(
  path: P,
  params?: { path?: GetParameters<P>["path"]; query?: GetParameters<P>["query"] },
): string {
  return createFinalURL(path, {
    baseUrl: "",
    params: {
      path: params?.path as Record<string, unknown> | undefined,
      query: params?.query as Record<string, unknown> | undefined,
    },
    querySerializer: createQuerySerializer(),
    pathSerializer: defaultPathSerializer,
  });
}

/** Query parameters as the server reads them: numbers as text, empty texts left out. */
export function queryOf<T extends Record<string, string | number | undefined>>(values: T): { [K in keyof T]?: string } {
  const query: { [K in keyof T]?: string } = {};
  for (const key of Object.keys(values) as Array<keyof T>) {
    const text = values[key] === undefined ? "" : String(values[key]).trim();
    if (text) query[key] = text;
  }
  return query;
}
