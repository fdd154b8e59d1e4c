import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { TasksService } from './tasks.service';

/** Ingestion task reports for operators (the CLI and the operator API). */
@Module({ imports: [ProjectsModule], providers: [TasksService], exports: [TasksService] })
export class TasksModule {}
