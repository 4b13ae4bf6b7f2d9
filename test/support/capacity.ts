/**
 * The local executor's capacity on test servers unless a test sets its own: tests start many jobs
 * of the default instance type (4 vCPUs, 8 GiB) on small machines, where the host's size would
 * refuse them or run them one at a time.
 */
export const TEST_CAPACITY = { RUNYARD_LOCAL_CPUS: '1024', RUNYARD_LOCAL_MEMORY_GIB: '4096' } as const;
