import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module';
import { RateLimitModule } from '../common/rate-limit.module';
import { DashboardController } from './dashboard.controller';

/** The dashboard's own routes (login, session, logout); its pages are served by dashboard-static.ts. */
@Module({
  imports: [AdminModule, RateLimitModule],
  controllers: [DashboardController],
})
export class DashboardModule {}
