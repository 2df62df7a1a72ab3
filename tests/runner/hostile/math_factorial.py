# expect: ResourceLimitExceeded line 3
import math
n = math.factorial(10**6)
