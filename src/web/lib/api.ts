import { ERROR_CODES } from "@shared/error-codes";

/**
 * A failed API call: the HTTP `status` (0 when the network failed), the server's stable `code` and
 * its `serverMessage` (both undefined when the answer had none). `message` is the server's text, or
 * "request failed (HTTP n)" / "network error" without one.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string | undefined,
  ) {
    super(serverMessage ?? (status ? `request failed (HTTP ${status})` : "network error"));
  }
}

/** The server's message for a failed call, else `fallback`. */
export function errorMessage(error: unknown, fallback: string): string {
  return (error instanceof ApiError && error.serverMessage) || fallback;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type RequestOptions = {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

const CSRF_COOKIE = "XSRF-TOKEN";
const CSRF_HEADER = "X-XSRF-TOKEN";

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

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A non-empty text field of an error answer (`message`, `code`). */
function textOf(body: unknown, key: "message" | "code"): string | undefined {
  if (!body || typeof body !== "object" || !(key in body)) return undefined;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === "string" && value.trim() ? value : undefined;
}

async function send(method: Method, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const init: RequestInit = { method, credentials: "same-origin", headers, signal: options.signal };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  if (method !== "GET") {
    const token = readCookie(CSRF_COOKIE);
    if (token) headers[CSRF_HEADER] = token;
  }
  try {
    return await fetch(path, init);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, undefined, undefined);
  }
}

/**
 * Calls the API: same-origin cookies, JSON in and out, the CSRF cookie echoed in a header
 * on unsafe methods (fetched first when there is none). A 403 for a stale CSRF token is retried
 * once, since the server sends a fresh token cookie with that answer. Resolves to the parsed JSON body (undefined if empty).
 */
export async function request<T = unknown>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  // No CSRF cookie yet (a first visit): any API answer sets one, so read the public config first
  // rather than send a request bound to be refused (a 403 in the console).
  if (method !== "GET" && !readCookie(CSRF_COOKIE)) await send("GET", "/api/public-config", {}).catch(() => {});
  let response = await send(method, path, options);
  let body = await readBody(response);
  if (method !== "GET" && textOf(body, "code") === ERROR_CODES.csrfFailed) {
    response = await send(method, path, options);
    body = await readBody(response);
  }
  if (!response.ok) throw new ApiError(response.status, textOf(body, "code"), textOf(body, "message"));
  return body as T;
}

export const api = {
  get: <T = unknown>(path: string, options?: Omit<RequestOptions, "body">) => request<T>("GET", path, options),
  post: <T = unknown>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("POST", path, { ...options, body }),
  put: <T = unknown>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("PUT", path, { ...options, body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("PATCH", path, { ...options, body }),
  delete: <T = unknown>(path: string, options?: Omit<RequestOptions, "body">) => request<T>("DELETE", path, options),
};
