import { existsSync } from 'node:fs';
import { adminTokenFile, generateAdminToken, writeAdminTokenHash } from './admin/admin-token';
import type { AppConfig } from './config/config';

/**
 * `kbqa admin token`: a new operator token for `/admin/v1`. Its sha256 replaces the stored one
 * (the running service reads the file at every check, so the old token stops working at once) and
 * the token is printed this one time. With KBQA_ADMIN_TOKEN set, that variable is the token, so
 * the command refuses rather than write a file that would change nothing.
 */
export async function adminTokenCommand(config: AppConfig): Promise<{ text: string; json: unknown }> {
  if (config.adminToken !== undefined) {
    throw new Error(
      'KBQA_ADMIN_TOKEN is set: the service uses that value as the operator token, so a generated one ' +
        'would not work. Change the variable (and restart the service) instead, or unset it to use ' +
        `\`${config.command} admin token\`.`,
    );
  }
  if (config.databaseUrl === undefined && !existsSync(config.databaseFile)) {
    process.stderr.write(
      `kbqa: no database in ${config.dataDir}; the token works only for a service started with this ` +
        'KBQA_DATA_DIR.\n',
    );
  }
  const token = generateAdminToken();
  const file = adminTokenFile(config.dataDir);
  await writeAdminTokenHash(file, token, { replace: true });
  return {
    text:
      `${token}\n(operator token for /admin/v1, as "Authorization: Bearer <token>"; shown once, store it now. ` +
      `It replaces the previous one; only its sha256 is kept, in ${file})`,
    json: { token },
  };
}
