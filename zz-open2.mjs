import { PGlite } from "@electric-sql/pglite";

const dir = process.argv[2];
const extra = process.argv.slice(3);
const defaults = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "io_method=sync",
  "-c",
  "max_parallel_maintenance_workers=0",
];
const t0 = performance.now();
const db = await PGlite.create(dir, extra.length ? { startParams: [...defaults, ...extra] } : {});
const t1 = performance.now();
const r = await db.query("show shared_buffers");
await db.close();
const u = process.cpuUsage();
console.log(
  extra.join(" ") || "default",
  "create",
  Math.round(t1 - t0),
  r.rows[0].shared_buffers,
  "cpu user",
  Math.round(u.user / 1000),
  "sys",
  Math.round(u.system / 1000),
);
