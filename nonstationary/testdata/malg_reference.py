# Independent reference for nonstationary.TestStatMALGMatchesReference.
# Usage: python3 malg_reference.py T runs  (pure Python 3, no packages).

# Independent reference: MASTER with tests disabled (= MALG on doubling blocks)
# around UCB1 (WL Alg. 7), stationary 2-arm Bernoulli(0.9, 0.5). Spec §2.1-2.3.
import math, random, sys
def rho_ucb1(A, T):
    k = A*math.log(T)
    return lambda t: math.sqrt(k/t) + k/t
class UCB1:
    def __init__(s, A, T):
        s.n=[0]*A; s.sum=[0.0]*A; s.scale=math.sqrt(0.5)*math.sqrt(math.log(T))
    def act(s):
        best=-1e9; arm=0
        for a in range(len(s.n)):
            np_=max(1,s.n[a]); v=s.sum[a]/np_ + s.scale/math.sqrt(np_)
            if v>best: best=v; arm=a
        return arm
    def obs(s,a,r): s.n[a]+=1; s.sum[a]+=r
def run(T, seed, means=(0.9,0.5)):
    rng=random.Random(seed); rho=rho_ucb1(2,T); best=max(means); reg=0.0
    t=1; n=0
    while t<=T:
        L=2**n
        # Procedure 1: schedule instances in block of order n
        sched=[]  # list of (order, s, e) block-relative 1-based
        for tau in range(L):
            for m in range(n,-1,-1):
                if tau % (2**m)==0 and rng.random() < rho(2**n)/rho(2**m):
                    sched.append((m,tau+1,tau+2**m))
        inst={}
        for tau in range(1,L+1):
            if t>T: break
            cov=[x for x in sched if x[1]<=tau<=x[2]]
            act=min(cov)  # lowest order
            if act not in inst: inst[act]=UCB1(2,T)
            a=inst[act].act()
            r=1.0 if rng.random()<means[a] else 0.0
            inst[act].obs(a,r); reg+=best-means[a]; t+=1
        n+=1
    return reg
T=int(sys.argv[1]); runs=int(sys.argv[2])
rs=[run(T,s) for s in range(runs)]
m=sum(rs)/runs; sd=(sum((x-m)**2 for x in rs)/(runs-1))**.5
print(T, "mean regret %.1f sd %.1f se %.1f"%(m,sd,sd/runs**.5))
