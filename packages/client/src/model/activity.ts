// GENERATED from src/schemas/ by scripts/generate-model.mjs (the tests check it is current). Do not edit.
import type { UnknownEventType } from "./open-enum.js";

/** The actor of an event (spec 2.7). */
export type EventActor = {
  id: number;
  login: string;
  url: string;
  avatar_url: string;
  display_login?: string;
  gravatar_id?: null | string;
};

export type EventRepo = {
  id: number;
  name: string;
  url: string;
};

/** Present on organization feeds. */
export type EventOrg = {
  id: number;
  login: string;
  url: string;
  avatar_url: string;
  gravatar_id?: null | string;
};

export type WatchEventPayload = {
  action: string;
};

export type PushCommit = {
  sha: string;
  author: {
    email: string;
    name: string;
  };
  message: string;
  distinct: boolean;
  url: string;
};

/** PushEvent payload. Newer API versions leave out `size`, `distinct_size` and `commits`. */
export type PushEventPayload = {
  repository_id: number;
  push_id: number;
  ref: string;
  head: string;
  before: string;
  size?: number;
  distinct_size?: number;
  commits?: PushCommit[];
};

/** CreateEvent payload; `ref` is null when a repository was created. */
export type CreateEventPayload = {
  ref: null | string;
  ref_type: string;
  master_branch: string;
  pusher_type: string;
  full_ref?: string;
  description?: null | string;
};

export type WatchEvent = {
  type: "WatchEvent";
  payload: WatchEventPayload;
  id: string;
  actor: EventActor;
  repo: EventRepo;
  public: boolean;
  created_at: null | string;
  org?: EventOrg;
};

export type PushEvent = {
  type: "PushEvent";
  payload: PushEventPayload;
  id: string;
  actor: EventActor;
  repo: EventRepo;
  public: boolean;
  created_at: null | string;
  org?: EventOrg;
};

export type CreateEvent = {
  type: "CreateEvent";
  payload: CreateEventPayload;
  id: string;
  actor: EventActor;
  repo: EventRepo;
  public: boolean;
  created_at: null | string;
  org?: EventOrg;
};

/**
 * Any other event type (the service's list is open, spec 6.4): the documented unknown branch. Its `type` is the
 * string received and its payload is kept as data, not rejected. A typed event with a malformed
 * payload does not fall through to this branch (its type is excluded), so it fails validation.
 */
export type OtherActivityEvent = {
  type: UnknownEventType;
  payload: Record<string, unknown>;
  id: string;
  actor: EventActor;
  repo: EventRepo;
  public: boolean;
  created_at: null | string;
  org?: EventOrg;
};

export type ActivityEvent = WatchEvent | PushEvent | CreateEvent | OtherActivityEvent;
