import { MESSAGES } from "@shared/messages";

/**
 * A failed API call. `message` is the server's `{message}`, or undefined when the server
 * sent none (or the network failed: status 0), so callers can fall back to the spec's text.
 */
export class ApiError {
  readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly message: string | undefined,
  ) {}
}

/** The server's message for a failed call, else `fallback`. */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.message ? error.message : fallback;
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

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === "object" && "message" in body) {
    const { message } = body as { message: unknown };
    if (typeof message === "string" && message.trim()) return message;
  }
  return undefined;
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
    throw new ApiError(0, undefined);
  }
}

/**
 * Calls the API: same-origin cookies, JSON in and out, the CSRF cookie echoed in a header
 * on unsafe methods. A 403 for a stale CSRF token is retried once, since the server sends
 * a fresh token cookie with that answer. Resolves to the parsed JSON body (undefined if empty).
 */
export async function request<T = unknown>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  let response = await send(method, path, options);
  let body = await readBody(response);
  if (response.status === 403 && method !== "GET" && messageOf(body) === MESSAGES.csrfFailed) {
    response = await send(method, path, options);
    body = await readBody(response);
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(body));
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
