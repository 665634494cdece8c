import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migratedPglite, migrationsFolder } from "../src/server/db/client";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What the seed is made from: the migration files, and the versions of PGlite and of Drizzle's migrator. */
function seedKey(): string {
  const hash = createHash("sha256");
  for (const name of readdirSync(migrationsFolder, { recursive: true }).map(String).sort()) {
    const file = path.join(migrationsFolder, name);
    if (statSync(file).isFile()) hash.update(name).update(readFileSync(file));
  }
  for (const name of ["@electric-sql/pglite", "drizzle-orm"]) {
    const manifest = path.join(root, "node_modules", name, "package.json");
    hash.update((JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version);
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The embedded database's seed: PGlite's initdb and every migration, as a gzipped tarball of its data
 * directory. Made once per set of migrations and versions (5-10 s of a core) and kept in
 * node_modules/.cache/callproof: the build copies it beside the server (src/server/db/client.ts,
 * PGLITE_SEED), and the tests load their PGlite databases from it. Returns its path.
 */
export async function pgliteSeed(): Promise<string> {
  const file = path.join(root, "node_modules/.cache/callproof", `pglite-seed-${seedKey()}.tar.gz`);
  if (existsSync(file)) return file;
  mkdirSync(path.dirname(file), { recursive: true });
  const pglite = await migratedPglite();
  const dump = Buffer.from(await (await pglite.dumpDataDir("gzip")).arrayBuffer());
  await pglite.close();
  // Whole or not at all: a build and the tests may make it at the same time.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(partial, dump);
  renameSync(partial, file);
  // Seeds of earlier migrations are of no more use.
  for (const name of readdirSync(path.dirname(file)))
    if (/^pglite-seed-[0-9a-f]{16}\.tar\.gz$/.test(name) && name !== path.basename(file))
      rmSync(path.join(path.dirname(file), name), { force: true });
  return file;
}
