import { fileURLToPath } from "node:url";

/** The import aliases of tsconfig.json's `paths`, for the tools that do not read it (Vite, Vitest). */
export const aliases = {
  "@shared": fileURLToPath(new URL("./src/shared", import.meta.url)),
  "@server": fileURLToPath(new URL("./src/server", import.meta.url)),
  "@web": fileURLToPath(new URL("./src/web", import.meta.url)),
  "@test": fileURLToPath(new URL("./test", import.meta.url)),
};
