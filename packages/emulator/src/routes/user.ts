// `GET /user` (users/get-authenticated in the OpenAPI description; the spec's permission matrix does not list it):
// who the credentials act for, as `shiplog auth status` asks. The rules, from the OpenAPI's operation:
// - it needs credentials (its 401 is `requires_authentication`: "Requires authentication");
// - it is not enabled for GitHub Apps (`x-github.enabledForGitHubApps: false`): an installation token, which acts
//   for no user, is refused 403 "Resource not accessible by integration"; tokens that act for a user answer;
// - "OAuth app tokens and personal access tokens (classic) need the `user` scope in order for the response to
//   include private profile information": the private view (`user_view_type: "private"`, the private-user schema)
//   for a classic token with the `user` or `read:user` scope, the public view (public-user) otherwise.
// Fine-grained and App user tokens get the public view too (the description names no rule for them; README,
// assumptions). An ETag and If-None-Match as on the service's other reads.
import type { FastifyInstance } from "fastify";
import type { AccessRule } from "../access-control.js";
import type { EmulatorContext } from "../emulator-context.js";
import { baseUrlOf } from "../base-url.js";
import { userView } from "../resource-views.js";
import { sendError } from "../service-errors.js";
import { sendConditionally } from "./conditional-get.js";

/** The path of `GET /user`: outside the permission matrix, with its own access rule. */
export const USER_ROUTE = "/user";

/** Who may call it: any token that acts for a user; anonymous callers get 401, installation tokens 403. */
export const USER_ACCESS_RULE: AccessRule = { anyOf: [], tokenTypes: ["classic", "fine_grained", "app_user"], publicRead: false };

/** Scopes that open a classic token's private profile. */
const PRIVATE_PROFILE_SCOPES = ["user", "read:user"];
/** When the fixture's users were created (the fixture keeps no dates). */
const CREATED_AT_MS = Date.UTC(2020, 0, 1);

/** Registers `GET /user`; the access rule has already refused callers who act for no user. */
export function registerUserRoute(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get(USER_ROUTE, async (request, reply) => {
    const principal = request.principal;
    const login = principal.kind === "token" ? principal.token.user : undefined;
    const user = login === undefined ? undefined : ctx.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    // A fixture token names a user the fixture lacks: the service would not have issued it.
    if (principal.kind !== "token" || !user) return sendError(reply, 401, "Bad credentials", { docs: "/authentication" });
    const created = ctx.clock.timestamp(CREATED_AT_MS);
    const profile = {
      ...userView(baseUrlOf(request), user),
      name: null,
      company: null,
      blog: "",
      location: null,
      email: null,
      hireable: null,
      bio: null,
      twitter_username: null,
      // The fixture's repositories belong to organizations, not to users.
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: created,
      updated_at: created,
    };
    const isPrivate = principal.token.type === "classic" && principal.token.scopes.some((s) => PRIVATE_PROFILE_SCOPES.includes(s));
    const body = isPrivate
      ? {
          ...profile,
          user_view_type: "private",
          notification_email: null,
          private_gists: 0,
          total_private_repos: 0,
          owned_private_repos: 0,
          disk_usage: 0,
          collaborators: 0,
          two_factor_authentication: true,
        }
      : { ...profile, user_view_type: "public" };
    return sendConditionally(request, reply, body);
  });
}
