/** One permission at an access level, as `X-Accepted-Service-Permissions` names it (`contents=read`). */
export interface AcceptedPermission {
  permission: string;
  access: string;
}

/** Permissions needed together; the header lists alternative sets. */
export type AcceptedPermissionSet = AcceptedPermission[];

/**
 * Parses `X-Accepted-Service-Permissions`: sets separated by `;` (any one suffices),
 * permissions within a set by `,` (all needed), each `name=access`.
 */
export function parseAcceptedPermissions(header: string | null | undefined): AcceptedPermissionSet[] {
  if (!header) return [];
  return header
    .split(";")
    .map((set) =>
      set
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item.includes("="))
        .map((item) => {
          const [permission = "", access = ""] = item.split("=", 2);
          return { permission: permission.trim(), access: access.trim() };
        }),
    )
    .filter((set) => set.length > 0);
}

/** Formats sets for the header (`header`) or for a person to read (`human`). */
export function formatAcceptedPermissions(sets: readonly AcceptedPermissionSet[], style: "header" | "human"): string {
  if (style === "header") {
    return sets.map((set) => set.map((p) => `${p.permission}=${p.access}`).join(",")).join("; ");
  }
  return sets.map((set) => set.map((p) => `${p.permission} (${p.access})`).join(" and ")).join(", or ");
}
