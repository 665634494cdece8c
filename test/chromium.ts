import { type Browser, chromium, type Page } from "playwright-core";
import type { MailCapture } from "./mail-capture";

/** The machine's Chromium, headless, with the flags this machine needs (browser tests and scripts). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** Waits for a URL whose path is exactly `pathname`: `page.waitForURL(pathIs("/admin"))`. */
export const pathIs = (pathname: string) => (url: URL) => url.pathname === pathname;

/**
 * Fills the two sign-in steps through the UI, reading the e-mailed code; resolves once signed in
 * (and, given `landsOn`, once the page is at that path). The page's base URL is the server's.
 */
export async function signInThroughUi(
  page: Page,
  server: { mail: MailCapture },
  email: string,
  password: string,
  landsOn?: string,
): Promise<void> {
  const before = server.mail.to(email).length;
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log In" }).click();
  await page.getByRole("heading", { name: "Enter 2FA Code from Email" }).waitFor();
  const code = await server.mail.signInCode(email, before);
  await page.getByLabel("Code").fill(code);
  await page.getByRole("button", { name: "Log In" }).click();
  await page.waitForURL((url) => url.pathname !== "/login");
  if (landsOn) await page.waitForURL(pathIs(landsOn));
}
