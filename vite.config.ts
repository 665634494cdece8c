import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { aliases } from "./aliases.ts";

const repoRoot = fileURLToPath(new URL(".", import.meta.url));
const apiServer = process.env.API_URL ?? "http://localhost:3000";

/** The web app: source in src/web, built into dist/web, which the Fastify server serves. */
export default defineConfig({
  root: "src/web",
  plugins: [react()],
  resolve: { alias: aliases },
  build: {
    outDir: "../../dist/web",
    // The widget build (scripts/build-widget.ts) writes dist/web/widget.js after this one.
    emptyOutDir: true,
    sourcemap: false,
    target: "es2022",
  },
  server: {
    // src/web imports from src/shared.
    fs: { allow: [repoRoot] },
    proxy: {
      // The API refuses unsafe requests whose Origin is not PUBLIC_URL's; in development the
      // page comes from Vite's port, so the proxy presents the API server's own origin.
      "/api": {
        target: apiServer,
        configure(proxy) {
          proxy.on("proxyReq", (req) => {
            if (req.getHeader("origin")) req.setHeader("origin", new URL(apiServer).origin);
          });
        },
      },
      "/widget.js": { target: apiServer },
    },
  },
});
