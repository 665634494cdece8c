import { ERROR_CODES, type ErrorCode } from "@shared/error-codes";
import createClient, {
  createFinalURL,
  createQuerySerializer,
  defaultPathSerializer,
  type FetchOptions,
  type FetchResponse,
  type Middleware,
} from "openapi-fetch";
import { type OperationId, operations } from "./api-operations";
import type { components, operations as OperationTypes, paths } from "./api-schema";

/** The error codes the server's OpenAPI document lists for its error answers. */
export type ApiErrorCode = components["schemas"]["Error"]["code"];
// The document's codes are the server's (error-codes.ts), no more and no fewer: this fails to compile otherwise.
const sameCodes: [ApiErrorCode, ErrorCode] extends [ErrorCode, ApiErrorCode] ? true : never = true;
void sameCodes;

/**
 * A failed API call: the HTTP `status` (0 when the network failed), the server's stable `code` and
 * its `serverMessage` (both undefined when the answer had none). `message` is the server's text, or
 * "request failed (HTTP n)" / "network error" without one.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode | undefined,
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

function codeOf(body: unknown): ApiErrorCode | undefined {
  const code = textOf(body, "code");
  return code && KNOWN_CODES.has(code) ? (code as ApiErrorCode) : undefined;
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
        await fetch(apiHref("getPublicConfig"), { credentials: "same-origin" }).catch(() => {});
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
 * (`npm run api:types`): same-origin cookies, JSON in and out, the CSRF middleware above. The app calls
 * it by operationId through `send`, which answers the data or throws an ApiError.
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

type Operation<Id extends OperationId> = OperationTypes[Id];
/** The second argument of a call of the operation: its parameters, its body, an abort signal… */
export type InitOf<Id extends OperationId> = FetchOptions<Operation<Id>>;
type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** `init` may be left out when the operation has no required parameter nor body. */
type ArgsOf<Id extends OperationId> = [RequiredKeysOf<InitOf<Id>>] extends [never]
  ? [init?: InitOf<Id>]
  : [init: InitOf<Id>];
/** What a successful call of the operation answers. */
export type AnswerOf<Id extends OperationId> = DataOf<FetchResponse<Operation<Id>, InitOf<Id>, `${string}/${string}`>>;

/**
 * Calls the operation `id` of the API (its method and path from the generated api-operations.ts) with
 * its parameters and body in `init`: its data, or an ApiError (status 0 when the network failed).
 */
export function send<Id extends OperationId>(id: Id, ...[init]: ArgsOf<Id>): Promise<AnswerOf<Id>> {
  const { method, path } = operations[id];
  const request = client.request as (method: string, path: string, init?: object) => Promise<Answer>;
  return call(request(method, path, init)) as Promise<AnswerOf<Id>>;
}

/** The operations that answer a GET (for links, downloads and event streams). */
export type GetOperationId = {
  [Id in OperationId]: (typeof operations)[Id]["method"] extends "get" ? Id : never;
}[OperationId];
type ParametersOf<Id extends OperationId> = Operation<Id>["parameters"];

/**
 * The URL of a GET operation of the API, with its path and query parameters, for what is not a fetch: a
 * download link, an event stream, a page the browser goes to.
 */
export function apiHref<Id extends GetOperationId>(
  id: Id,
  params?: { path?: ParametersOf<Id>["path"]; query?: ParametersOf<Id>["query"] },
): string {
  return createFinalURL(operations[id].path, {
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
