import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config';
import {
  adminTokenFile,
  generateAdminToken,
  hashAdminToken,
  readAdminTokenHash,
  tokenMatches,
  writeAdminTokenHash,
} from './admin-token';

/**
 * Checks operator tokens. With KBQA_ADMIN_TOKEN set, that value is the token. Otherwise the
 * token's sha256 lives in `<dataDir>/admin-token.sha256`, created on the first start and replaced
 * by `kbqa admin token`; it is read again at every check (65 bytes, and operator calls are rare),
 * so a rotated token works at once, without a restart.
 */
@Injectable()
export class AdminTokenService implements OnModuleInit {
  private readonly logger = new Logger('AdminToken');
  private readonly envHash: Buffer | undefined;
  private readonly file: string;
  /** The last problem reported about the file, so a broken file is logged once, not per request. */
  private reported: string | undefined;
  private readonly command: string;
  private created = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.command = config.command;
    this.envHash = config.adminToken === undefined ? undefined : hashAdminToken(config.adminToken);
    this.file = adminTokenFile(config.dataDir);
  }

  /**
   * First start without KBQA_ADMIN_TOKEN: stores the hash of a new token. The token itself is
   * shown to no one, not even once: logs are kept, shipped and read by more people than operators
   * (docker logs, journald, a CI log), and whoever reads the token owns every project. The
   * start-up lines print the command that makes a usable one instead ({@link createdOnThisStart});
   * running it needs the data directory, which is as much access as the token gives.
   */
  async onModuleInit(): Promise<void> {
    if (this.envHash) return;
    if (await writeAdminTokenHash(this.file, generateAdminToken(), { replace: false })) {
      this.created = true;
      this.logger.debug(`created an operator token for /admin/v1 (only its sha256 is kept, in ${this.file})`);
    }
  }

  /** Whether this start created the token file: the first start on this data directory. */
  get createdOnThisStart(): boolean {
    return this.created;
  }

  /** Whether `presented` (empty when none was sent) is the operator token; constant-time. */
  async verify(presented: string): Promise<boolean> {
    return tokenMatches(presented, this.envHash ?? (await this.storedHash()));
  }

  /**
   * The sha256 of the current operator token (undefined when there is none): dashboard sessions
   * remember it, so that rotating the token ends the sessions opened with the old one.
   */
  async currentHash(): Promise<Buffer | undefined> {
    return this.envHash ?? (await this.storedHash());
  }

  private async storedHash(): Promise<Buffer | undefined> {
    try {
      const hash = await readAdminTokenHash(this.file);
      if (!hash)
        this.reportOnce(`${this.file} is missing; run \`${this.command} admin token\` to create a token`);
      else this.reported = undefined;
      return hash;
    } catch (e) {
      this.reportOnce(e instanceof Error ? e.message : String(e));
      return undefined;
    }
  }

  private reportOnce(problem: string): void {
    if (this.reported === problem) return;
    this.reported = problem;
    this.logger.error(`operator API refuses every token: ${problem}`);
  }
}
