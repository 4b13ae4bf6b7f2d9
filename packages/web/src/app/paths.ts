/** The dashboard's paths under /app (the router's basename). */
export const paths = {
  signIn: '/sign-in',
  jobs: '/advanced-analytics/analyses',
  job: (id: string) => `/advanced-analytics/analyses/${encodeURIComponent(id)}`,
  launch: '/advanced-analytics/launch',
  data: '/data',
  workflows: '/workflows',
  projects: '/projects',
  sessions: '/data-science/interactive-analysis',
  session: (id: string) => `/data-science/interactive-analysis/view/${encodeURIComponent(id)}`,
  admin: '/admin',
} as const;
