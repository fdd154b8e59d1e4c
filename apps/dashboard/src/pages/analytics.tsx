import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';
import { percent, utcDay, when } from '../format';
import type { Analytics, Channel, Gap, Project } from '../types';
import { Table, Loading, Section, useLoad } from '../ui';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  DoughnutController,
  ArcElement,
  Legend,
  Tooltip,
);

/** The channels in the order the chart and the counts show them, with their names. */
const CHANNELS: Array<[Channel, string]> = [
  ['api', 'API'],
  ['widget', 'Widget'],
  ['slack', 'Slack'],
  ['discord', 'Discord'],
  ['mcp', 'MCP'],
];

/** A Chart.js chart on a canvas, made again when its data change. */
function ChartCanvas({ config, label }: { config: ChartConfiguration; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [JSON.stringify(config.data)]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

export function AnalyticsPage({ project }: { project: Project }) {
  const [from, setFrom] = useState(utcDay(29));
  const [to, setTo] = useState(utcDay());
  const range = new URLSearchParams({ from, to }).toString();
  const stats = useLoad(
    () => get<Analytics>(`projects/${project.id}/analytics?${range}`),
    [project.id, range],
  );
  const [version, setVersion] = useState('');
  const gapQuery = version ? `${range}&${new URLSearchParams({ version }).toString()}` : range;
  const gaps = useLoad(
    () => get<{ gaps: Gap[] }>(`projects/${project.id}/gaps?${gapQuery}`),
    [project.id, gapQuery],
  );
  const a = stats.data;
  // Shown only for versioned documentation: some question named a version.
  const versions = (a?.questions_per_version ?? []).filter((v) => v.version !== null);
  return (
    <Section title={`Analytics of ${project.name}`}>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label for="stats-from">From</label>
        <input id="stats-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <label for="stats-to">To</label>
        <input id="stats-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </form>
      {!a ? (
        <Loading error={stats.error} />
      ) : (
        <div class="charts">
          <figure>
            <figcaption>
              Questions per day ({a.questions_per_day.reduce((n, d) => n + d.questions, 0)} in all)
            </figcaption>
            <ChartCanvas
              label="Questions per day"
              config={{
                type: 'bar',
                data: {
                  labels: a.questions_per_day.map((d) => d.day.slice(5)),
                  datasets: [
                    {
                      label: 'Questions',
                      data: a.questions_per_day.map((d) => d.questions),
                      backgroundColor: '#3b82f6',
                    },
                  ],
                },
                options: {
                  animation: false,
                  plugins: { legend: { display: false } },
                  scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
                },
              }}
            />
          </figure>
          <figure>
            <figcaption>Questions by channel</figcaption>
            <ChartCanvas
              label="Questions by channel"
              config={{
                type: 'bar',
                data: {
                  labels: CHANNELS.map(([, name]) => name),
                  datasets: [
                    {
                      label: 'Questions',
                      data: CHANNELS.map(([channel]) => a.questions_by_channel[channel]),
                      backgroundColor: '#0ea5e9',
                    },
                  ],
                },
                options: {
                  animation: false,
                  plugins: { legend: { display: false } },
                  scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
                },
              }}
            />
            <ul class="channel-counts">
              {CHANNELS.map(([channel, name]) => (
                <li>
                  {name}: {a.questions_by_channel[channel]}
                </li>
              ))}
            </ul>
          </figure>
          <figure>
            <figcaption>
              Ratings of {a.ratings.answers} answers: {percent(a.ratings.good_share)} good,{' '}
              {percent(a.ratings.bad_share)} bad
            </figcaption>
            <ChartCanvas
              label="Share of answers rated good and bad"
              config={{
                type: 'doughnut',
                data: {
                  labels: ['Good', 'Bad', 'Unrated'],
                  datasets: [
                    {
                      data: [a.ratings.good, a.ratings.bad, a.ratings.unrated],
                      backgroundColor: ['#16a34a', '#dc2626', '#9ca3af'],
                    },
                  ],
                },
                options: { animation: false },
              }}
            />
          </figure>
          <figure>
            <figcaption>
              Durations of {a.durations.ended} ended conversations
              {a.durations.median_seconds !== null && ` (median ${Math.round(a.durations.median_seconds)} s)`}
            </figcaption>
            <ChartCanvas
              label="Conversation durations"
              config={{
                type: 'bar',
                data: {
                  labels: a.durations.buckets.map((b) => b.label),
                  datasets: [
                    {
                      label: 'Conversations',
                      data: a.durations.buckets.map((b) => b.count),
                      backgroundColor: '#8b5cf6',
                    },
                  ],
                },
                options: {
                  animation: false,
                  plugins: { legend: { display: false } },
                  scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
                },
              }}
            />
          </figure>
        </div>
      )}
      {a && versions.length > 0 && (
        <section aria-label="Questions by version">
          <h2>Questions by version</h2>
          <Table label="Questions by version" columns={['Version', 'Questions']}>
            <tbody>
              {a.questions_per_version.map((v) => (
                <tr>
                  <td>{v.version ?? 'none named'}</td>
                  <td>{v.questions}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </section>
      )}
      <section aria-label="Documentation gaps">
        <h2>Documentation gaps</h2>
        <p class="muted">
          Questions answered with no relevant source or rated bad, grouped by similar wording.
        </p>
        {versions.length > 0 && (
          <form class="inline" onSubmit={(e) => e.preventDefault()}>
            <label for="gaps-version">Version</label>
            <select id="gaps-version" value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
              <option value="">All versions</option>
              {versions.map((v) => (
                <option value={v.version!}>{v.version}</option>
              ))}
            </select>
          </form>
        )}
        {!gaps.data ? (
          <Loading error={gaps.error} />
        ) : gaps.data.gaps.length === 0 ? (
          <p class="muted">No gaps in this period.</p>
        ) : (
          <Table
            label="Gap list"
            columns={['Question', 'Asked', 'No source', 'Rated bad', 'Other wordings', 'Last asked']}
          >
            <tbody>
              {gaps.data.gaps.map((g) => (
                <tr>
                  <td>{g.question}</td>
                  <td>{g.count}</td>
                  <td>{g.no_source}</td>
                  <td>{g.rated_bad}</td>
                  <td>{g.examples.filter((x) => x !== g.question).join(' · ')}</td>
                  <td>{when(g.last_asked)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </section>
    </Section>
  );
}
