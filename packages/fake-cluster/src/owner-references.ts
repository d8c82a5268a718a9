import type { KubeObject, OwnerReference } from "./kube-object.js";
import type { ObjectOf } from "./object-kinds.js";
import type { ObjectStore } from "./object-store.js";
import type { ResourceName } from "./resource-kinds.js";

/** The controller ownerReference a controller puts on what it creates. */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ownerReference with controller: true, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Objects of `resource` controlled by `owner`. */
export function controlledBy<R extends ResourceName>(store: ObjectStore, owner: KubeObject, resource: R): ObjectOf<R>[] {
  return store.controlledBy(owner.metadata.uid!, resource);
}
