import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import staticFiles, { CACHE } from "./static";

/** A built web app in miniature, with its precompressed copies as the build writes them. */
function fakeBuild(): string {
  const root = mkdtempSync(path.join(tmpdir(), "callproof-static-"));
  mkdirSync(path.join(root, "assets"));
  const files: Record<string, string> = {
    "index.html": `<!doctype html><div id="root"></div>${"<!-- padding -->".repeat(40)}`,
    "assets/index-AbC123.js": `console.log(${JSON.stringify("x".repeat(4000))});`,
    "widget.js": `(function(){${"var a=1;".repeat(200)}})();`,
    "widget-fr.json": JSON.stringify({ title: "Vérifier qui vous appelle", pad: "x".repeat(400) }),
  };
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    writeFileSync(file, content);
    writeFileSync(`${file}.br`, brotliCompressSync(content));
    writeFileSync(`${file}.gz`, gzipSync(content));
  }
  writeFileSync(path.join(root, "favicon.svg"), "<svg/>");
  return root;
}

describe("static files", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(staticFiles, { root: fakeBuild() });
    await app.ready();
  });
  afterAll(() => app.close());

  it("serves hashed assets as brotli or gzip, as the client accepts, cached for a year", async () => {
    const br = await app.inject({
      url: "/assets/index-AbC123.js",
      headers: { "accept-encoding": "gzip, deflate, br" },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(br.headers["cache-control"]).toBe(CACHE.hashed);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toContain("console.log");
    expect(br.rawPayload.length).toBeLessThan(200);

    const gz = await app.inject({ url: "/assets/index-AbC123.js", headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString()).toContain("console.log");

    const plain = await app.inject({ url: "/assets/index-AbC123.js", headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(4000);
  });

  it("serves index.html for app routes, compressed and never cached without revalidation", async () => {
    for (const url of ["/", "/login", "/admin/anything?x=1"]) {
      const res = await app.inject({ url, headers: { "accept-encoding": "br" } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-encoding"]).toBe("br");
      expect(res.headers["cache-control"]).toBe(CACHE.other);
      expect(brotliDecompressSync(res.rawPayload).toString()).toContain('<div id="root">');
    }
  });

  it("serves /widget.js to any site, short-lived, revalidated with its ETag", async () => {
    const res = await app.inject({ url: "/widget.js", headers: { "accept-encoding": "gzip" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe(CACHE.widget);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const etag = res.headers.etag;
    expect(etag).toBeTruthy();
    const again = await app.inject({
      url: "/widget.js",
      headers: { "accept-encoding": "gzip", "if-none-match": String(etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it("serves the widget's texts in another language (/widget-fr.json) to any site like /widget.js", async () => {
    const res = await app.inject({ url: "/widget-fr.json", headers: { "accept-encoding": "gzip" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["cache-control"]).toBe(CACHE.widget);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(JSON.parse(gunzipSync(res.rawPayload).toString("utf8")).title).toBe("Vérifier qui vous appelle");
  });

  it("answers page paths, .html ones included, with the app (which sends unknown pages to /)", async () => {
    for (const url of ["/no-such-page", "/foo.html", "/old/index.htm?x=1"]) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toMatch(/^text\/html/);
      expect(res.headers["cache-control"], url).toBe("no-cache");
    }
  });

  it("answers unknown files and API paths with 404 {message}", async () => {
    for (const url of ["/missing.js", "/assets/nope-123.css", "/api/unknown"]) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ message: "Not found.", code: "not_found" });
    }
  });
});
