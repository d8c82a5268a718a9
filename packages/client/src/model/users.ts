// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.

/** The user object as other resources embed it (spec 2.6). Only `login` and `id` are relied on. */
export type SimpleUser = {
  login: string;
  id: number;
  node_id?: string;
  avatar_url?: string;
  gravatar_id?: null | string;
  url?: string;
  html_url?: string;
  followers_url?: string;
  following_url?: string;
  gists_url?: string;
  starred_url?: string;
  subscriptions_url?: string;
  organizations_url?: string;
  repos_url?: string;
  events_url?: string;
  received_events_url?: string;
  type?: string;
  site_admin?: boolean;
};
