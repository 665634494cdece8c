import { randomBytes } from "node:crypto";
import { organisations } from "@server/db/schema";
import { createUser } from "@test/helpers";
import { describe, expect, it } from "vitest";
import { openSignedIn, seriousViolations, setUpBrowserSuite } from "./support";

const suite = setUpBrowserSuite();

describe("deactivated organisations on the admin dashboard (issue 32 H2)", () => {
  it("lists an organisation deactivated by domain and reactivates it; its employer then waits in the pending list", async () => {
    const tag = randomBytes(3).toString("hex");
    const domain = `gone-${tag}.test`;
    const [organisation] = await suite.server.database.db
      .insert(organisations)
      .values({
        companyName: `Gone ${tag} Ltd`,
        domain,
        website: `https://www.${domain}`,
        websiteHost: `www.${domain}`,
        createdAt: suite.server.clock.now(),
      })
      .returning();
    await createUser(suite.server, {
      email: `boss@${domain}`,
      role: "superuser",
      fullName: `Gina Gone ${tag}`,
      organisationId: organisation?.id ?? null,
    });
    const admin = await createUser(suite.server, { role: "admin" });
    const page = await suite.newPage();
    await openSignedIn(page, suite.server, admin, "/admin");

    const domainForm = page.getByRole("region", { name: "Deactivate Users by Email Domain" });
    await domainForm.getByLabel("Email domain").fill(domain);
    page.once("dialog", (dialog) => void dialog.accept());
    await domainForm.getByRole("button", { name: "Deactivate domain" }).click();
    await domainForm.getByText(/1 account with email domain/).waitFor();

    const deactivated = page.getByRole("region", { name: "Deactivated organisations" });
    const row = deactivated.getByRole("row", { name: new RegExp(`Gone ${tag} Ltd`) });
    await row.waitFor();
    expect(await row.getByRole("cell", { name: domain, exact: true }).count()).toBe(1);
    expect(await seriousViolations(page, 'section[aria-labelledby="deactivated-organisations-title"]')).toEqual([]);

    await deactivated.getByRole("button", { name: `Reactivate Gone ${tag} Ltd` }).click();
    await deactivated.getByRole("status").getByText(`Gone ${tag} Ltd is active again`, { exact: false }).waitFor();
    await row.waitFor({ state: "detached" });

    const pending = page.getByRole("region", { name: "Pending employer accounts" });
    await pending.getByRole("button", { name: `Activate Gina Gone ${tag}` }).click();
    await pending.getByRole("row", { name: new RegExp(`Gina Gone ${tag}`) }).waitFor({ state: "detached" });
  });
});
