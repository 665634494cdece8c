import { z } from "zod";
import { PAGE_SIZE } from "./constants";

export const PAGING_MESSAGES = {
  invalidPage: "Page must be a whole number of 1 or more.",
  invalidId: "The id must be a positive whole number.",
  invalidOrganisation: "organisationId must be a positive whole number.",
} as const;

/** Rows per page of the dashboards' lists. */
export const LIST_PAGE_SIZE = PAGE_SIZE;

/**
 * 1 to 2147483647 (a database integer) in decimal, as one pattern: the OpenAPI document shows it, so a
 * client that checks it sends nothing the server refuses (`^[1-9]\d{0,9}$` admitted up to 9999999999).
 */
const POSITIVE_INT32 =
  /^(?:[1-9]\d{0,8}|1\d{9}|20\d{8}|21[0-3]\d{7}|214[0-6]\d{6}|2147[0-3]\d{5}|21474[0-7]\d{4}|214748[0-2]\d{3}|2147483[0-5]\d{2}|21474836[0-3]\d|214748364[0-7])$/;

/** A positive whole number in a path or query string that fits a database integer. */
export function idSchema(message: string = PAGING_MESSAGES.invalidId) {
  return z.string().regex(POSITIVE_INT32, message).transform(Number);
}

/** `?page=`: a whole number of 1 or more. */
export const pageNumber = z
  .string()
  .regex(/^\d{1,7}$/, PAGING_MESSAGES.invalidPage)
  .transform(Number)
  .refine((n) => n >= 1, PAGING_MESSAGES.invalidPage);

/** `?organisationId=` of the admin's views of one organisation. */
export const organisationIdParam = idSchema(PAGING_MESSAGES.invalidOrganisation);

/** `?organisationId=`: the organisation an admin looks at through an employer-dashboard read. */
export const organisationQuery = z.object({ organisationId: organisationIdParam.optional() });

/** `:id` of a record. */
export const idParams = z.object({ id: idSchema() });

/**
 * `:id` of a record an integration looks up (/api/v1): any text, and one that is no record's id (too long,
 * not a number) becomes 0, which names no record, so the route answers its own 404 rather than a 400.
 */
export const lookupIdParams = z.object({
  id: z
    .string()
    // The document shows the ids there are (a client that checks them sends nothing else); the server
    // answers anything else with the route's own 404.
    .meta({ description: "the record's id", pattern: POSITIVE_INT32.source })
    .transform((text) => idSchema().safeParse(text).data ?? 0),
});

/** `?q=&page=`: when either is given, list endpoints answer one page instead of the whole array. */
export const listQuery = z.object({
  q: z.string().trim().max(200, "The search text is too long.").optional(),
  page: pageNumber.optional(),
});
export type ListQuery = z.infer<typeof listQuery>;

/** One page of a list: `pages` is at least 1, so "Page 1 of 1" reads well when empty. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number(),
    page: z.number(),
    pageSize: z.number(),
    pages: z.number(),
  });
}
export type Page<T> = { items: T[]; total: number; page: number; pageSize: number; pages: number };
