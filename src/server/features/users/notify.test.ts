import type { Mail } from "@server/mail/mailer";
import { createEmployee, createEmployer } from "@test/fixtures";
import { buildTestApp, createUser, type TestApp, uniqueEmail } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyOrganisationAdmins } from "./service";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const notice = (to: string): Mail => ({
  to,
  subject: "A notice",
  text: "Something changed.",
  html: "<p>Something changed.</p>",
});

describe("notifyOrganisationAdmins", () => {
  it("mails every active superuser of the organisation, nobody else", async () => {
    const { org, user, domain } = await createEmployer(t);
    const second = await createUser(t, {
      email: uniqueEmail(domain, "boss2"),
      role: "superuser",
      organisationId: org.id,
    });
    const gone = await createUser(t, {
      email: uniqueEmail(domain, "boss3"),
      role: "superuser",
      status: "deactivated",
      organisationId: org.id,
    });
    const employee = await createEmployee(t, org.id, domain);
    const other = await createEmployer(t);

    expect(await notifyOrganisationAdmins(t.app.deps, org.id, notice)).toBe(2);
    for (const to of [user.email, second.email]) expect(t.mail.to(to).map((m) => m.subject)).toContain("A notice");
    for (const to of [gone.email, employee.email, other.user.email]) expect(t.mail.to(to)).toHaveLength(0);
  });

  it("goes on past a mail that fails and never fails its caller", async () => {
    const { org, user, domain } = await createEmployer(t);
    const second = await createUser(t, {
      email: uniqueEmail(domain, "boss2"),
      role: "superuser",
      organisationId: org.id,
    });
    const delivered: string[] = [];
    const mailer = {
      ...t.app.deps.mailer,
      send: async (mail: Mail) => {
        if (mail.to === user.email) throw new Error("SMTP refused the recipient");
        delivered.push(mail.to);
      },
    };
    await expect(notifyOrganisationAdmins({ ...t.app.deps, mailer }, org.id, notice)).resolves.toBe(1);
    expect(delivered).toEqual([second.email]);
  });
});
