import { loadConfig } from './config/config';
import { serve } from './server';

serve(loadConfig()).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
