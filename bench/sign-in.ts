/**
 * Sign-in benchmark: throughput of step 1 (argon2id check + code e-mailed over SMTP) and of
 * whoami (session look-up), alone and together, to show that hashing does not stall other requests.
 *   npm run bench -- sign-in            (PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- sign-in
 */
import autocannon from "autocannon";
import { buildTestApp, createUser, GOOD_PASSWORD, signIn } from "../test/helpers";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const fmt = (name: string, r: autocannon.Result) =>
  `${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${r.non2xx}`;

if (process.env.BENCH_DATABASE_URL) {
  process.env.TEST_DB = "postgres";
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
}
const t = await buildTestApp({ listen: true, env: { TRUST_PROXY: "127.0.0.1" } });
try {
  const users = await Promise.all(Array.from({ length: 50 }, () => createUser(t)));
  const browser = await signIn(t, users[0]!.email);
  const cookie = browser.cookieHeader();
  const xsrf = browser.cookie("XSRF-TOKEN") ?? "";
  // An anonymous CSRF token for the login calls.
  const anon = await fetch(`${t.url}/api/auth/whoami`);
  const anonXsrf = /XSRF-TOKEN=([^;]+)/.exec(anon.headers.get("set-cookie") ?? "")?.[1] ?? "";
  let n = 0;
  const login: autocannon.Options = {
    url: t.url,
    connections: 8,
    duration: DURATION,
    requests: [
      {
        method: "POST",
        path: "/api/auth/login",
        setupRequest: (req) => {
          const u = users[n++ % users.length]!;
          return {
            ...req,
            headers: {
              "content-type": "application/json",
              cookie: `XSRF-TOKEN=${anonXsrf}`,
              "x-xsrf-token": anonXsrf,
              "x-forwarded-for": `10.1.${(n >> 8) & 255}.${n & 255}`,
            },
            body: JSON.stringify({ email: u.email, password: GOOD_PASSWORD }),
          };
        },
      },
    ],
  };
  const whoami: autocannon.Options = {
    url: `${t.url}/api/auth/whoami`,
    connections: 8,
    duration: DURATION,
    headers: { cookie, "x-xsrf-token": xsrf },
  };
  console.log(`database: ${t.database.description}, ${DURATION} s per run, 8 connections each`);
  console.log(fmt("whoami alone", await run(whoami)));
  console.log(fmt("sign-in step 1 alone", await run(login)));
  const [w, l] = await Promise.all([run(whoami), run(login)]);
  console.log(fmt("whoami during sign-ins", w));
  console.log(fmt("sign-in step 1 during whoami load", l));
  console.log(`mails captured: ${t.mail.messages.length}`);
} finally {
  await t.close();
}
