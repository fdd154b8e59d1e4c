import { Initial1732000000000 } from './1732000000000-initial';

/** Every migration, oldest first. Never edit a released one: add a new file. */
export const MIGRATIONS = [Initial1732000000000];
