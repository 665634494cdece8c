import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import { routedPath } from "@server/lib/request-path";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import fp from "fastify-plugin";

/** The Cache-Control of each kind of built file. */
export const CACHE = {
  /** file names carry a hash of their content: they never change */
  hashed: "public, max-age=31536000, immutable",
  /** embedded on other sites: short-lived, revalidated with its ETag */
  widget: "public, max-age=300",
  /** the app's entry page and anything else: always revalidated */
  other: "no-cache",
} as const;

function setHeaders(res: { setHeader(name: string, value: string): unknown }, file: string) {
  const name = path.basename(file).replace(/\.(br|gz)$/, "");
  // The same URL answers brotli, gzip or plain bytes: shared caches must key on Accept-Encoding.
  res.setHeader("vary", "accept-encoding");
  // the widget and the texts it fetches in the customer's language (/widget-fr.json, …) from other sites
  if (name === "widget.js" || /^widget-[a-z]{2}\.json$/.test(name) || name === "call-status.js") {
    res.setHeader("cross-origin-resource-policy", "cross-origin");
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("cache-control", CACHE.widget);
  } else if (/^call-status(-[a-z]{2})?\.[0-9a-f]{12}\.(js|json)$/.test(name)) {
    // the call-status component and its texts, versioned (fetched cross-origin with SRI: CORS needed)
    res.setHeader("cross-origin-resource-policy", "cross-origin");
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("cache-control", CACHE.hashed);
  } else if (file.includes(`${path.sep}assets${path.sep}`)) {
    res.setHeader("cache-control", CACHE.hashed);
  } else {
    res.setHeader("cache-control", CACHE.other);
  }
}

/** The versioned call-status component as integrators embed it: its URL path and SRI hash. */
export type CallStatusScript = { path: string; integrity: string };

let callStatus: CallStatusScript | null = null;

/**
 * The built call-status component (scripts/build-call-status.ts writes `call-status.json` beside it), or
 * null when the build has none; read when this plugin registers.
 */
export function callStatusScript(): CallStatusScript | null {
  return callStatus;
}

function readCallStatusScript(root: string): CallStatusScript | null {
  try {
    const { file, integrity } = JSON.parse(readFileSync(path.join(root, "call-status.json"), "utf8"));
    if (typeof file !== "string" || typeof integrity !== "string" || !/^call-status\.[0-9a-f]{12}\.js$/.test(file))
      return null;
    return { path: `/${file}`, integrity };
  } catch {
    return null;
  }
}

/**
 * The built web app and widget from `root`: files compressed at build time go out as brotli or gzip as the
 * client accepts, with cache headers by kind. Any other GET outside /api is a web-app route (the app itself
 * decides what it shows); everything else unknown is a 404 `{message}`.
 */
export default fp<{ root: string }>(
  async (app, { root }) => {
    const hasWeb = existsSync(path.join(root, "index.html"));
    callStatus = readCallStatusScript(root);
    if (hasWeb) {
      await app.register(fastifyStatic, {
        root,
        wildcard: false,
        index: false,
        preCompressed: true,
        etag: true,
        lastModified: true,
        cacheControl: false,
        setHeaders,
      });
    }

    app.setNotFoundHandler((request, reply) => {
      const isPage = (request.method === "GET" || request.method === "HEAD") && !routedPath(request).startsWith("/api");
      // A path without an extension, or an .html one, is a page of the app (it redirects unknown pages to /);
      // a missing script, style or image stays a 404.
      const extension = path.extname(request.url.split("?")[0] ?? "").toLowerCase();
      if (hasWeb && isPage && (extension === "" || extension === ".html" || extension === ".htm")) {
        return reply.sendFile("index.html");
      }
      return reply.code(404).send({ message: MESSAGES.notFound, code: ERROR_CODES.notFound });
    });
  },
  { name: "static-files", fastify: "5.x" },
);
