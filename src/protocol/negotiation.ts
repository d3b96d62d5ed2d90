/**
 * Version and capability selection for `negotiate` (spec §2.2): what the provider must choose, and a
 * check that a negotiate response is a valid answer to the request it answers. Shape, limits and
 * enum checks are in the negotiate_response schema; these are the checks that need the request.
 */
import { utf8Length } from './digest.ts';
import type { NegotiateRequest } from './envelope.ts';
import { issue, type ProtocolIssue } from './issues.ts';
import { CAPABILITIES, type Capability } from './methods.ts';
import type { WireShape } from './schemas/registry.ts';

export const SESSION_TOKEN_MAX_BYTES = 256;

/** CETP-2.2-05: the highest major version both sides support; null ⇒ UNSUPPORTED_VERSION (2.2-15). */
export function selectVersion(
  consumerVersions: readonly number[],
  providerVersions: readonly number[],
): number | null {
  const common = consumerVersions.filter((v) => providerVersions.includes(v));
  return common.length === 0 ? null : Math.max(...common);
}

/** CETP-2.2-06: the optional capabilities both sides support, in §2.3 order; unknown names dropped. */
export function selectCapabilities(consumer: readonly string[], provider: readonly string[]): Capability[] {
  const selected: Capability[] = [];
  for (const c of CAPABILITIES) if (consumer.includes(c) && provider.includes(c)) selected.push(c);
  return selected;
}

/**
 * Is `response` a valid answer to `request`? The selected version must be one the consumer offered
 * (and, when the provider's versions are known, the highest common one); the capabilities must be
 * ones the consumer offered; the session token at most 256 UTF-8 bytes.
 */
export function checkNegotiateResponse(
  response: WireShape<'negotiate_response'>,
  request: NegotiateRequest,
  providerVersions?: readonly number[],
): ProtocolIssue[] {
  const issues: ProtocolIssue[] = [];
  const selected = response.selected_version;
  const best =
    providerVersions === undefined ? undefined : selectVersion(request.consumerVersions, providerVersions);
  if (!request.consumerVersions.includes(selected) || (best !== undefined && selected !== best)) {
    issues.push(
      issue(
        'version_not_selectable',
        `selected_version ${selected} is not the highest common version of [${request.consumerVersions.join(',')}]`,
        ['CETP-2.2-05', 'CETP-2.2-16'],
        '/selected_version',
      ),
    );
  }
  response.capabilities.forEach((c, index) => {
    if (!request.consumerCapabilities.includes(c)) {
      issues.push(
        issue(
          'capability_not_offered',
          `capability ${c} was not offered by the consumer`,
          ['CETP-2.2-06'],
          `/capabilities/${index}`,
        ),
      );
    } else if (response.capabilities.indexOf(c) !== index) {
      issues.push(
        issue('duplicate_name', `capability ${c} is listed twice`, ['CETP-2.2-06'], `/capabilities/${index}`),
      );
    }
  });
  const tokenBytes = utf8Length(response.session_token);
  if (tokenBytes > SESSION_TOKEN_MAX_BYTES) {
    issues.push(
      issue(
        'session_token_too_long',
        `session_token is ${tokenBytes} bytes, over ${SESSION_TOKEN_MAX_BYTES}`,
        ['CETP-2.2-08'],
        '/session_token',
      ),
    );
  }
  return issues;
}
