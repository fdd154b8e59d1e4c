import { randomInt } from 'node:crypto';

/**
 * A record id that cannot be guessed from another one: a random integer from 2^32 up to 2^48.
 * It fits a JSON number exactly, and never equals the small sequential ids of rows stored before
 * ids were random, so those keep theirs. Tasks, conversations and messages are named by such
 * ids; a collision (about 1 in 2^48 per row) is drawn again by whoever inserts.
 */
export function randomRecordId(): number {
  return randomInt(2 ** 32, 2 ** 48);
}

/** Draws before giving up on an insert whose random id keeps colliding (never, in practice). */
export const RANDOM_ID_ATTEMPTS = 3;
