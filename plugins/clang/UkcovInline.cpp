//===- plugins/clang/UkcovInline.cpp -- inline kcov points for clang 14 -===//
//
// A pass plugin for the new pass manager:
//
//	clang-14 -fpass-plugin=.../ukcov-inline-clang.so -g -O2 -c f.c
//
// Each basic block that SanitizerCoverage's trace-pc would instrument
// (same critical-edge splitting, same pruning: LLVM 14
// llvm/lib/Transforms/Instrumentation/SanitizerCoverage.cpp,
// shouldInstrumentBlock) gets, instead of a call to
// __sanitizer_cov_trace_pc, the code of include/ukcov/inline.h (ABI 1):
//
//	on = __ukcov_sancov's word at offset 4	(the callback's gate)
//	L:					(L in __ukcov_pcs)
//	if (on != 0)
//		__ukcov_inline_pc_v1(L);	(cold, out of line)
//
// With tracing off that is one load and one not-taken branch per block
// instead of a call and a return (docs/DESIGN.md, "Inline
// instrumentation", has the alternatives measured).  The PC is the end
// of the load in the block's own code, so the tool's point (PC - 1) lies
// in the block and symbolizes to the line a trace-pc call would have had:
// the instrumentation takes the debug location SanitizerCoverage gives
// its call.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Mangler.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include "ukcov/inline.h"

using namespace llvm;

namespace {

// Set on a module once instrumented, so that a second run of the pass
// (an LTO pre-link pipeline, a plugin given twice) changes nothing.
const char DoneFlag[] = "ukcov.inline";

// The test of point k and its table entry in one statement: the bit's
// byte of the map tested, then the label that ends the test, so the
// label is an address inside the block (the tool's point, label - 1,
// is the test's last byte), and the entry is that label, relocated
// like SanitizerCoverage's __sancov_pcs.  The Z flag is the asm's
// output: set when the bit is clear, and clang branches on it directly
// (testb; je).  Only the cold path computes the PC, from the label, so
// that the hot path holds no PC in a register.  sideeffect: never
// merged with another point's, hoisted or dropped.  The label is
// module-unique (Instrumenter::labelName); a copy of the statement would
// define it twice and stop the assembler, never record a wrong PC.
std::string testAsm(const std::string &Label, uint32_t K, uint32_t FBase,
		    const std::string &Section)
{
	std::string Bit = std::to_string(1u << (K & 7));
	std::string Byte = std::to_string((K - FBase) >> 3);
	std::string Entry = "\t.quad " + Label + "\n";

	return "testb $$" + Bit + ", " + Byte + "($1)\n" + Label + ":\n" +
	       "\t.pushsection " + Section + "\n\t.p2align 3\n" + Entry +
	       "\t.popsection";
}

// The table's section for the points of F.  A function in a COMDAT
// group (C++ inline functions, template instances) lists its points in
// a section of that group: when the linker keeps another unit's copy
// and discards this one, the entries go with it, where a plain
// __ukcov_pcs section would refer to discarded code and stop the link
// (as SanitizerCoverage puts __sancov_pcs in the function's comdat).
// The section is linked to the function (SHF_LINK_ORDER, flag "o", as
// __sancov_pcs is): --gc-sections keeps its entries exactly while it
// keeps the function, where an unreferenced section lost them all.
// LLVM's assembler reads the group before the linked-to symbol (GNU as
// the other way round: plugins/gcc).
std::string pcsSection(const Function &F)
{
	SmallString<64> Sym;
	std::string Flags, Tail;

	Mangler().getNameWithPrefix(Sym, &F, false);
	// A name that needs more than '$' doubled is not worth quoting:
	// its table is not linked, and --gc-sections keeps all of it.
	bool Linked = Sym.str().find_first_of("{|}\"") == StringRef::npos;

	if (Linked)
		Flags = "o";
	if (const Comdat *C = F.getComdat()) {
		Flags += "G";
		Tail = "," + C->getName().str() + ",comdat";
	}
	if (Linked) {
		std::string Escaped;

		for (char Ch : Sym.str()) {
			if (Ch == '$')
				Escaped += '$';
			Escaped += Ch;
		}
		Tail += ",\"" + Escaped + "\"";
	}
	return UKCOV_INLINE_PCS_SECTION ",\"aw" + Flags + "\",@progbits" + Tail;
}

std::string pcAsm(const std::string &Label)
{
	return "leaq " + Label + "(%rip), $0";
}

bool isFullDominator(const BasicBlock *BB, const DominatorTree &DT)
{
	if (succ_empty(BB))
		return false;
	return all_of(successors(BB), [&](const BasicBlock *S) {
		return DT.dominates(BB, S);
	});
}

bool isFullPostDominator(const BasicBlock *BB, const PostDominatorTree &PDT)
{
	if (pred_empty(BB))
		return false;
	return all_of(predecessors(BB), [&](const BasicBlock *P) {
		return PDT.dominates(BB, P);
	});
}

// SanitizerCoverage.cpp shouldInstrumentBlock, for an edge-type
// trace-pc build (what -fsanitize-coverage=trace-pc means).
bool shouldInstrumentBlock(const Function &F, const BasicBlock *BB,
			   const DominatorTree &DT,
			   const PostDominatorTree &PDT)
{
	if (isa<UnreachableInst>(BB->getFirstNonPHIOrDbgOrLifetime()))
		return false;
	if (BB->getFirstInsertionPt() == BB->end())
		return false;
	if (&F.getEntryBlock() == BB)
		return true;
	return !isFullDominator(BB, DT) &&
	       !(isFullPostDominator(BB, PDT) && !BB->getSinglePredecessor());
}

// SanitizerCoverage.cpp instrumentFunction's list of functions left alone.
bool shouldInstrumentFunction(const Function &F)
{
	if (F.empty() || F.isDeclaration())
		return false;
	if (F.getName().contains(".module_ctor") ||
	    F.getName().startswith("__sanitizer_") ||
	    F.getName().startswith("__ukcov_"))
		return false;
	if (F.getLinkage() == GlobalValue::AvailableExternallyLinkage)
		return false;
	if (isa<UnreachableInst>(F.getEntryBlock().getTerminator()))
		return false;
	return !F.hasFnAttribute(Attribute::NoSanitizeCoverage);
}

// SanitizerCoverage.cpp PrepareToSplitEntryBlock: static allocas and
// llvm.localescape stay first in the entry block.
BasicBlock::iterator entryInsertPoint(BasicBlock &BB)
{
	BasicBlock::iterator IP = BB.getFirstInsertionPt();

	for (auto I = IP, E = BB.end(); I != E; ++I) {
		if (auto *AI = dyn_cast<AllocaInst>(I)) {
			if (AI->isStaticAlloca())
				IP = std::next(I);
		} else if (auto *II = dyn_cast<IntrinsicInst>(I)) {
			if (II->getIntrinsicID() == Intrinsic::localescape)
				IP = std::next(I);
		}
	}
	return IP;
}

class Instrumenter {
public:
	explicit Instrumenter(Module &M);
	bool runOnFunction(Function &F);
	void finish();

private:
	Value *mapOfTu(IRBuilder<> &IRB);
	AllocaInst *hoistMap(Function &F, BasicBlock::iterator EntryIP);
	void injectAtBlock(Function &F, BasicBlock &BB, AllocaInst *Slot);
	std::string labelName();

	Module &M;
	Type *Int8PtrTy;
	Type *Int32Ty;
	Type *Int64Ty;
	GlobalVariable *Tu;
	Function *Thunk;
	StoreInst *EntryStore = nullptr;
	MDNode *Unlikely;
	std::string Hash;
	std::string LabelPrefix;
	uint64_t NextLabel = 0;
	uint32_t NextPoint = 0;
	uint32_t FBase = 0; // the current function's first point
};

Instrumenter::Instrumenter(Module &Mod) : M(Mod)
{
	LLVMContext &C = M.getContext();

	Int8PtrTy = Type::getInt8PtrTy(C);
	Int32Ty = Type::getInt32Ty(C);
	Int64Ty = Type::getInt64Ty(C);
	// Local names of one object file: modules merged by LTO must not
	// share them, so they carry a hash of the module's names.
	Hash = utohexstr(hash_combine(M.getModuleIdentifier(),
				      M.getSourceFileName()));
	LabelPrefix = ".Lukcov_pc_" + Hash + "_";
	// The TU's byte offset in every map (include/ukcov/inline.h).
	Tu = new GlobalVariable(M, Int64Ty, false,
				GlobalValue::InternalLinkage,
				ConstantInt::get(Int64Ty, UKCOV_INLINE_UNREG),
				"__ukcov_tu_" + Hash);
	Tu->setAlignment(Align(8));
	// The cold call's target: the TU's offset into r11, then the
	// runtime's entry (ABI 2 passes it there).  Naked: the arguments
	// (the PC, k) stay in rdi and esi; preserve_most for the callers,
	// whose registers it leaves alone.  Through the GOT, never a PLT
	// slot: glibc's lazy binding would clobber r10 on the first call
	// from a shared library (sysdeps/x86_64/dl-trampoline.h saves only
	// the argument registers).
	FunctionType *ThunkTy =
		FunctionType::get(Type::getVoidTy(C), {Int64Ty, Int32Ty}, false);
	Thunk = Function::Create(ThunkTy, GlobalValue::InternalLinkage,
				 "__ukcov_thunk_" + Hash, M);
	Thunk->setCallingConv(CallingConv::PreserveMost);
	Thunk->addFnAttr(Attribute::Naked);
	Thunk->addFnAttr(Attribute::NoUnwind);
	Thunk->addFnAttr(Attribute::Cold);
	Thunk->addFnAttr(Attribute::NoInline);
	BasicBlock *Body = BasicBlock::Create(C, "", Thunk);
	IRBuilder<> TB(Body);
	TB.CreateCall(InlineAsm::get(
		FunctionType::get(Type::getVoidTy(C), {Tu->getType()}, false),
		"leaq ${0:P}(%rip), %r11\n"
		"\tjmp *" UKCOV_INLINE_PC2_FN "@GOTPCREL(%rip)",
		"i,~{r11}", /*hasSideEffects=*/true), {Tu});
	TB.CreateUnreachable();
	Unlikely = MDBuilder(C).createBranchWeights(1, 1 << 20);
}

std::string Instrumenter::labelName()
{
	return LabelPrefix + std::to_string(NextLabel++);
}

// __ukcov_imap + tu + the function's first byte: where this function's
// bits start in the thread's map.  Each function's points start a
// byte (runOnFunction), so that its tests' offsets are small: one byte
// of displacement for its first 1024 points instead of four.  The TLS
// load is one asm statement (initial-exec, as the runtime's callbacks
// reach __ukcov_thread): as an IR load, the backend kept the variable's
// GOT offset in a callee-saved register of every function that calls,
// to reload it after the calls; here it is loaded again with them
// (lua: 2% fewer instructions).  Read-only, not volatile: it may be
// merged with another while nothing is written in between, never moved
// across a call.
Value *Instrumenter::mapOfTu(IRBuilder<> &IRB)
{
	InlineAsm *Ld = InlineAsm::get(
		FunctionType::get(Int8PtrTy, { Tu->getType() }, false),
		"movq " UKCOV_INLINE_MAP_SYM "@GOTTPOFF(%rip), $0\n\t"
		"movq %fs:($0), $0\n\t"
		"addq ${1:P}(%rip), $0",
		"=r,i", /*hasSideEffects=*/false);
	CallInst *M0 = IRB.CreateCall(Ld, { Tu });

	M0->addFnAttr(Attribute::NoUnwind);
	M0->addFnAttr(Attribute::ReadOnly);
	return IRB.CreateGEP(IRB.getInt8Ty(), M0,
			     ConstantInt::get(Int64Ty, FBase / 8), "ukcov.map");
}

// The map once per function in a stack slot that mem2reg turns into a
// register (finish of runOnFunction), loaded again after each call:
// the runtime changes __ukcov_imap only inside calls (enable, disable,
// reset, a signal handler's state is restored before it returns).
// Functions that call setjmp are left to load it per block: a second
// return from setjmp would bring back the register's old value.
AllocaInst *Instrumenter::hoistMap(Function &F, BasicBlock::iterator EntryIP)
{
	SmallVector<Instruction *, 16> After;
	BasicBlock &Entry = F.getEntryBlock();

	if (F.callsFunctionThatReturnsTwice())
		return nullptr;
	for (BasicBlock &BB : F)
		for (Instruction &I : BB) {
			auto *CB = dyn_cast<CallBase>(&I);

			if (!CB || isa<IntrinsicInst>(CB) || CB->isInlineAsm())
				continue;
			if (auto *II = dyn_cast<InvokeInst>(CB)) {
				for (BasicBlock *D : {II->getNormalDest(),
						      II->getUnwindDest()}) {
					auto IP = D->getFirstInsertionPt();
					if (IP != D->end())
						After.push_back(&*IP);
				}
				continue;
			}
			if (auto *CI = dyn_cast<CallInst>(CB))
				if (CI->isMustTailCall())
					continue;
			if (Instruction *Next = CB->getNextNode())
				After.push_back(Next);
		}
	AllocaInst *Slot = new AllocaInst(Int8PtrTy, 0, "ukcov.slot",
					  &*Entry.getFirstInsertionPt());
	IRBuilder<> IRB(&*EntryIP);
	EntryStore = IRB.CreateStore(mapOfTu(IRB), Slot);
	for (Instruction *I : After) {
		IRBuilder<> R(I);
		R.CreateStore(mapOfTu(R), Slot);
	}
	return Slot;
}

void Instrumenter::injectAtBlock(Function &F, BasicBlock &BB, AllocaInst *Slot)
{
	BasicBlock::iterator IP = BB.getFirstInsertionPt();
	std::string Label = labelName();
	uint32_t K = NextPoint++;
	DebugLoc EntryLoc;

	if (&BB == &F.getEntryBlock()) {
		if (DISubprogram *SP = F.getSubprogram())
			EntryLoc = DILocation::get(SP->getContext(),
						   SP->getScopeLine(), 0, SP);
		IP = entryInsertPoint(BB);
		// After the map's first computation (hoistMap).
		if (Slot)
			IP = std::next(EntryStore->getIterator());
	}
	IRBuilder<> IRB(&*IP);
	if (EntryLoc)
		IRB.SetCurrentDebugLocation(EntryLoc);
	Value *P = Slot ? IRB.CreateLoad(Int8PtrTy, Slot) : mapOfTu(IRB);
	InlineAsm *Test = InlineAsm::get(
		FunctionType::get(IRB.getInt8Ty(), { Int8PtrTy }, false),
		testAsm(Label, K, FBase, pcsSection(F)),
		"={@ccz},r,~{dirflag},~{fpsr},~{flags}",
		/*hasSideEffects=*/true);
	CallInst *Z = IRB.CreateCall(Test, {P});
	Z->addFnAttr(Attribute::NoUnwind);
	Z->addFnAttr(Attribute::NoDuplicate);
	Value *Cond = IRB.CreateICmpNE(Z, IRB.getInt8(0));
	Instruction *Then = SplitBlockAndInsertIfThen(Cond, &*IP, false,
						      Unlikely);
	IRBuilder<> Cold(Then);
	Cold.SetCurrentDebugLocation(IRB.getCurrentDebugLocation());
	InlineAsm *PcFn = InlineAsm::get(FunctionType::get(Int64Ty, false),
					 pcAsm(Label), "=r",
					 /*hasSideEffects=*/true);
	CallInst *Pc = Cold.CreateCall(PcFn, {});
	Pc->addFnAttr(Attribute::NoUnwind);
	Pc->addFnAttr(Attribute::NoDuplicate);
	CallInst *Rec = Cold.CreateCall(Thunk, {Pc, Cold.getInt32(K)});
	Rec->setCallingConv(CallingConv::PreserveMost);
	Rec->setCannotMerge();
	Rec->addFnAttr(Attribute::NoUnwind);
}

bool Instrumenter::runOnFunction(Function &F)
{
	SmallVector<BasicBlock *, 16> Blocks;

	if (!shouldInstrumentFunction(F) || &F == Thunk)
		return false;
	// -fsanitize-coverage=trace-pc is edge coverage: critical edges
	// get their own block, as in SanitizerCoverage.
	SplitAllCriticalEdges(
		F, CriticalEdgeSplittingOptions().setIgnoreUnreachableDests());
	DominatorTree DT(F);
	PostDominatorTree PDT(F);
	for (BasicBlock &BB : F)
		if (shouldInstrumentBlock(F, &BB, DT, PDT))
			Blocks.push_back(&BB);
	if (Blocks.empty())
		return false;
	NextPoint = (NextPoint + 7) & ~7u;
	FBase = NextPoint;
	AllocaInst *Slot = hoistMap(F, entryInsertPoint(F.getEntryBlock()));
	for (BasicBlock *BB : Blocks)
		injectAtBlock(F, *BB, Slot);
	if (Slot) {
		DominatorTree After(F);

		if (isAllocaPromotable(Slot))
			PromoteMemToReg({Slot}, After);
	}
	return true;
}

// The TU's constructor numbers its points before any other constructor
// of the program runs (priority 1; SanitizerCoverage's are 2).
void Instrumenter::finish()
{
	LLVMContext &C = M.getContext();

	if (NextPoint > UKCOV_INLINE_TU_MAX) {
		C.emitError("ukcov inline instrumentation: more than " +
			    Twine(UKCOV_INLINE_TU_MAX) +
			    " points in one translation unit; build it with "
			    "UKCOV_INLINE=0 (calls)");
		return;
	}
	if (NextPoint == 0) {
		Thunk->eraseFromParent();
		Tu->eraseFromParent();
		return;
	}
	FunctionCallee Init = M.getOrInsertFunction(
		UKCOV_INLINE_INIT_FN,
		FunctionType::get(Type::getVoidTy(C), {Tu->getType(), Int32Ty},
				  false));
	Function *Ctor = Function::Create(
		FunctionType::get(Type::getVoidTy(C), false),
		GlobalValue::InternalLinkage, "__ukcov_ctor_" + Hash, M);
	Ctor->addFnAttr(Attribute::NoUnwind);
	IRBuilder<> IRB(BasicBlock::Create(C, "", Ctor));
	IRB.CreateCall(Init, {Tu, IRB.getInt32(NextPoint)});
	IRB.CreateRetVoid();
	appendToGlobalCtors(M, Ctor, 1);
}

struct UkcovInlinePass : PassInfoMixin<UkcovInlinePass> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		bool Changed = false;

		if (M.getModuleFlag(DoneFlag))
			return PreservedAnalyses::all();
		if (Triple(M.getTargetTriple()).getArch() != Triple::x86_64) {
			M.getContext().emitError(
				"ukcov inline instrumentation supports x86-64 "
				"only; build with UKCOV_INLINE=0 (calls)");
			return PreservedAnalyses::all();
		}
		// A module built for link-time optimization (-flto: clang
		// sets "ThinLTO" to 0; -flto=thin: "EnableSplitLTOUnit")
		// is optimized again at the link, after this pass, and
		// the link's inliner copies a point's asm into every
		// caller: one label defined twice, and the link fails.
		if (M.getModuleFlag("ThinLTO") ||
		    M.getModuleFlag("EnableSplitLTOUnit")) {
			M.getContext().emitError(
				"ukcov inline instrumentation (clang) does not "
				"support -flto; build with UKCOV_INLINE=0 "
				"(calls)");
			return PreservedAnalyses::all();
		}
		M.addModuleFlag(Module::Override, DoneFlag, 1);
		Instrumenter I(M);
		for (Function &F : M)
			Changed |= I.runOnFunction(F);
		I.finish();
		return Changed ? PreservedAnalyses::none()
			       : PreservedAnalyses::all();
	}
	// Also for optnone (-O0) functions.
	static bool isRequired() { return true; }
};

// Where SanitizerCoverage runs in clang 14: the optimizer's last
// extension point (clang/lib/CodeGen/BackendUtil.cpp).  LLVM 14's -O0
// pipeline (PassBuilder::buildO0DefaultPipeline) runs that extension
// point too, after the always-inliner, so -O0 needs nothing more
// (tests/suites.d/57-inline.sh builds at -O0).
void registerUkcov(PassBuilder &PB)
{
	PB.registerOptimizerLastEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel) {
			MPM.addPass(UkcovInlinePass());
		});
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return {LLVM_PLUGIN_API_VERSION, "UkcovInline", "1", registerUkcov};
}
