/**
 * A session belongs to the tenant of its first event. Every consumer that keeps per-session state applies
 * this one rule, so they agree on which events are part of the session: an event of another tenant is
 * refused (dead-lettered with this reason), never folded into the owner's session.
 */
export function foreignTenantReason(
  owner: string,
  event: { readonly sessionId: string; readonly tenant: string },
): string | undefined {
  return owner === event.tenant
    ? undefined
    : `session ${event.sessionId} belongs to another tenant than "${event.tenant}"`;
}
