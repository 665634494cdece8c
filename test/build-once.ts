/**
 * Vitest global set-up of the browser project: the production build, once, before its files start (they
 * run two at a time and all serve dist/web; e2e/start.test.ts runs dist/server).
 */
import { ensureBuild } from "../e2e/support";

export default function setup() {
  ensureBuild();
}
