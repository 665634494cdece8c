import { ANONYMOUS_READ_ONLY, anonymousLimit } from "@server/lib/anonymous-access";
import { requireRole } from "@server/plugins/guards";
import { widgetCall } from "@server/plugins/widget-cors";
import type { App } from "@server/types";
import { reportedNumbersAnswer } from "@shared/alerts";
import { errorAnswer, messageAnswer, textAnswer } from "@shared/answers";
import { requestLanguage } from "@shared/languages";
import { listQuery, organisationQuery } from "@shared/paging";
import { REPORTS_PER_HOUR } from "@shared/reports";
import { reportBody, reportsPage, reportsQuery } from "@shared/reports-schemas";
import * as reports from "./service";

export default async function reportsRoutes(app: App) {
  app.options(
    "/reports",
    { onRequest: widgetCall, config: { widget: true, anonymous: ANONYMOUS_READ_ONLY } },
    async (_request, reply) => reply.code(204).send(),
  );

  app.post(
    "/reports",
    {
      onRequest: widgetCall,
      config: { widget: true, anonymous: anonymousLimit({ limit: REPORTS_PER_HOUR, windowMs: 3_600_000 }) },
      schema: {
        operationId: "reportCall",
        summary: "Report a suspicious call (the widget's call)",
        body: reportBody,
        response: { 201: messageAnswer },
      },
    },
    async (request, reply) => {
      const { language: asked, ...body } = request.body;
      const language = requestLanguage(asked, request.headers["accept-language"]);
      reply.header("content-language", language);
      const { message, organisationId } = await reports.createReport(app.deps, request.actor, {
        body,
        origin: request.headers.origin,
        language,
      });
      if (organisationId !== null) {
        // The mail must not hold up the customer's answer; a failure is logged, and the job tries again.
        app.deps.background.run("reported-calls summary", () => reports.mailReportSummary(app.deps, organisationId));
      }
      return reply.code(201).send({ message });
    },
  );

  const dashboard = requireRole("superuser", "admin");
  app.get(
    "/employer/reports",
    {
      preValidation: dashboard,
      schema: {
        operationId: "listReports",
        summary: "The organisation's reported calls, a page at a time",
        querystring: reportsQuery,
        response: { 404: errorAnswer, 200: reportsPage },
      },
    },
    async (request) => reports.organisationReports(app.deps, request.actor, request.query),
  );

  app.get(
    "/employer/reports/top-numbers",
    {
      preValidation: dashboard,
      schema: {
        operationId: "listTopReportedNumbers",
        summary: "The numbers reported most in 30 days",
        querystring: organisationQuery,
        response: { 404: errorAnswer, 200: reportedNumbersAnswer },
      },
    },
    async (request) => reports.mostReportedNumbers(app.deps, request.actor, request.query),
  );

  app.get(
    "/employer/reports.csv",
    {
      preValidation: dashboard,
      schema: {
        operationId: "exportReportsCsv",
        summary: "The organisation's reported calls as CSV",
        querystring: organisationQuery,
        response: {
          404: errorAnswer,
          200: textAnswer("text/csv", "The reported calls as an attachment", "at,site,callerNumber\n"),
        },
      },
    },
    async (request, reply) => {
      const csv = await reports.organisationReportsCsv(app.deps, request.actor, request.query);
      return reply
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="reported-calls.csv"')
        .header("cache-control", "no-store")
        .send(csv);
    },
  );

  app.get(
    "/admin/reports",
    {
      preValidation: requireRole("admin"),
      schema: {
        operationId: "listUnroutedReports",
        summary: "Reported calls that reached no organisation (admins)",
        querystring: listQuery,
        response: { 200: reportsPage },
      },
    },
    async (request) => reports.unroutedReports(app.deps, request.query),
  );
}
