import type { App } from "../../types";

export default async function routes(_app: App) {}
