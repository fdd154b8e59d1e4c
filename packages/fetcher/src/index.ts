export { SafeFetcher, DEFAULT_USER_AGENT, retryAfterMs, type SafeFetcherOptions } from './safe.fetcher';
export {
  AddressPolicy,
  forbiddenAddressReason,
  defaultLookup,
  type AddressPolicyOptions,
  type LookupFn,
  type ResolvedAddress,
} from './address.policy';
export { parseRobots, productToken, type RobotsRules } from './robots.rules';
export { createGuardedFetch, type GuardedFetch, type GuardedFetchOptions } from './guarded.fetch';
