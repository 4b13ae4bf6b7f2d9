/**
 * Test servers run container jobs on the host's system (in the sandbox) unless a test is about
 * images: the images the tests' workflows name (library/ubuntu) are Docker Hub's, which test
 * machines do not reach. The image tests (packages/server/test/images, test/image-jobs) run jobs
 * in images from a registry of their own, on the default (RUNYARD_JOB_IMAGES=pull).
 */
export const TEST_JOB_IMAGES = { RUNYARD_JOB_IMAGES: 'host' } as const;
