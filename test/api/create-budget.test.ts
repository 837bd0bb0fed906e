import { useService } from '../helpers/api.ts'
import { createBudgetCases } from '../helpers/create-budget.ts'

// In-memory counters (no REDIS_URL); create-budget-redis.test.ts runs the same cases on Redis.
createBudgetCases(useService())
