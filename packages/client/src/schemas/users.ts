import { z } from "zod";

/** The user object as other resources embed it (spec 2.6). Only `login` and `id` are relied on. */
export const simpleUser = z.looseObject({
  login: z.string(),
  id: z.number().int(),
  node_id: z.string().optional(),
  avatar_url: z.string().optional(),
  gravatar_id: z.string().nullable().optional(),
  url: z.string().optional(),
  html_url: z.string().optional(),
  followers_url: z.string().optional(),
  following_url: z.string().optional(),
  gists_url: z.string().optional(),
  starred_url: z.string().optional(),
  subscriptions_url: z.string().optional(),
  organizations_url: z.string().optional(),
  repos_url: z.string().optional(),
  events_url: z.string().optional(),
  received_events_url: z.string().optional(),
  type: z.string().optional(),
  site_admin: z.boolean().optional(),
});
export type SimpleUser = z.infer<typeof simpleUser>;

/** A user name as a path segment (`/users/{username}`). */
export const username = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/, {
    message: "must be letters, digits or '-' (a bot name may end in [bot])",
  });
