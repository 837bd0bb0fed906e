import { useService } from '../helpers/api.ts'
import { createBudgetCases, redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'

// The create budget on Redis counters, as several instances share them; skipped when no Redis answers.
const available = await redisReachable()
createBudgetCases(useService({ REDIS_URL: TEST_REDIS_URL }), { skip: available ? false : `no Redis at ${TEST_REDIS_URL}` })
