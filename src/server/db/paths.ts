import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export const migrationsFolder = path.join(here, "migrations");
/**
 * A migrated, empty PGlite data directory as a tarball, written by the build beside the bundled server
 * (dist/server; there is none when running from the sources): a new data directory is loaded from it
 * instead of running PostgreSQL's initdb in WebAssembly, which was most of a first start (bench/README.md).
 */
export const PGLITE_SEED = path.join(here, "pglite-seed.tar.gz");
